// optrace: the command-line client of optraced. This file only parses the
// command line (CLI11 is slow to compile: it is included here and nowhere
// else) and hands each subcommand its options; the *_command.cc files do
// the work.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/level_names.h"
#include "connection.h"
#include "diff_command.h"
#include "exit_codes.h"
#include "export_command.h"
#include "fleet_filter.h"
#include "human_format.h"
#include "level_command.h"
#include "ops_command.h"
#include "proto_names.h"
#include "run_command.h"
#include "sessions_command.h"
#include "stats_command.h"
#include "status_command.h"
#include "tail_command.h"
#include "wall_clock.h"

namespace optrace::cli {
namespace {

// Accepts what `parse` accepts; CLI11 prints the message for the rest.
template <typename T>
CLI::Validator WordValidator(std::optional<T> (*parse)(std::string_view), std::string_view words) {
  return CLI::Validator(
      [parse, list = std::string(words)](std::string& text) {
        return parse(text) ? std::string() : text + " is not one of: " + list;
      },
      "");
}

// An option whose value is one of the words `parse` knows, stored parsed.
template <typename T, typename Out>
CLI::Option* AddWordOption(CLI::App* app, const std::string& name, Out* out,
                           std::optional<T> (*parse)(std::string_view), std::string_view words,
                           const std::string& help) {
  return app
      ->add_option_function<std::string>(
          name, [out, parse](const std::string& text) { *out = *parse(text); },
          help + " (" + std::string(words) + ")")
      ->type_name("WORD")
      ->check(WordValidator(parse, words));
}

// Accepts what ParseDuration accepts.
CLI::Validator DurationValidator() {
  return CLI::Validator(
      [](std::string& text) {
        return ParseDuration(text) ? std::string()
                                   : text + " is not a duration like 500us, 1ms or 2.5s";
      },
      "");
}

// --min-duration and the like: "1ms", "2.5s", "100us".
CLI::Option* AddDurationOption(CLI::App* app, const std::string& name, uint64_t* out_ns,
                               const std::string& help) {
  return app
      ->add_option_function<std::string>(
          name, [out_ns](const std::string& text) { *out_ns = *ParseDuration(text); }, help)
      ->check(DurationValidator())
      ->type_name("DURATION");
}

// --since and --until: a duration before now ("1h"), stored as the
// instant it names.
CLI::Option* AddAgoOption(CLI::App* app, const std::string& name, int64_t* out_unix_ns,
                          const std::string& help) {
  return app
      ->add_option_function<std::string>(
          name,
          [out_unix_ns](const std::string& text) {
            // No earlier than the epoch: 0 then means "no bound", which it is.
            const int64_t now = NowUnixNs();
            *out_unix_ns = now - static_cast<int64_t>(std::min<uint64_t>(
                                     *ParseDuration(text), static_cast<uint64_t>(now)));
          },
          help)
      ->check(DurationValidator())
      ->type_name("DURATION");
}

void AddJsonFlag(CLI::App* app, bool* json, const std::string& what) {
  app->add_flag("--json", *json, "print " + what + " as JSON");
}

// The span filter options; returns them, for `needs` rules.
std::vector<CLI::Option*> AddFilterOptions(CLI::App* app, OpFilterOptions* filter) {
  return {
      app->add_option("--name", filter->name_pattern,
                      "only ops whose name matches this RE2 pattern"),
      app->add_option("--tag", filter->tag_pattern, "only ops whose tag matches this RE2 pattern"),
      AddWordOption(app, "--target", &filter->target, ParseTargetWord, TargetWordList(),
                    "only ops on this kind of device"),
      app->add_option_function<uint32_t>(
          "--device", [filter](uint32_t d) { filter->device = d; },
          "only ops on this device ordinal"),
      AddWordOption(app, "--status", &filter->status, ParseSpanStatusWord, SpanStatusWordList(),
                    "only spans with this status"),
      AddDurationOption(app, "--min-duration", &filter->min_duration_ns,
                        "only spans at least this long (e.g. 1ms)"),
      AddAgoOption(app, "--since", &filter->start_min_unix_ns,
                   "only spans that started within this long before now (e.g. 1h)"),
      AddAgoOption(app, "--until", &filter->start_max_unix_ns,
                   "only spans that started at least this long before now (e.g. 10m)"),
  };
}

// --fleet, and --node and --label that need it; SESSION (`session`) is
// then not given, and is required without it.
CLI::Option* AddFleetOptions(CLI::App* app, bool* fleet, FleetFilterOptions* filter,
                             CLI::Option* session, const std::string& what) {
  CLI::Option* fleet_flag = app->add_flag(
      "--fleet", *fleet,
      what + " of every node's spans, from the ClickHouse the daemon forwards to, not a session");
  fleet_flag->excludes(session);
  app->add_option("--node", filter->node, "with --fleet: only this node")->needs(fleet_flag);
  app->add_option("--label", filter->label, "with --fleet: only sessions with this label")
      ->needs(fleet_flag);
  return fleet_flag;
}

// SESSION is required unless --fleet was given.
std::optional<CliError> CheckSessionOrFleet(const CLI::Option* session, bool fleet) {
  if (fleet || session->count() > 0) return std::nullopt;
  return CliError{kExitUsage, "SESSION is required (or --fleet, for every node's spans)"};
}

// Every subcommand's options, filled by the parse.
struct Commands {
  ConnectionOptions connection;
  TailOptions tail;
  LevelGetOptions level_get;
  LevelSetOptions level_set;
  SessionsOptions sessions;
  SessionShowOptions session_show;
  OpsOptions ops;
  StatsOptions stats;
  DiffOptions diff;
  std::string diff_a, diff_b;  // A and B as given: session ids or fleet selectors
  ExportOptions export_;
  StatusOptions status;
  RunOptions run;
  std::string help_topic;
};

// A parsed subcommand and what running it means. Listed children first,
// so that the first parsed one is the most specific.
using Action = std::function<int()>;
using Actions = std::vector<std::pair<CLI::App*, Action>>;

// Runs `command` with a connection to the daemon, or fails with the
// connection's error.
int WithConnection(const ConnectionOptions& options,
                   const std::function<int(Connection&)>& command) {
  CliError error;
  std::unique_ptr<Connection> connection = Connection::Open(options, &error);
  if (!connection) return Fail(error);
  return command(*connection);
}

// Registers `command` to run `run(connection, options)` WithConnection.
// `connection` and `options` are read when the action runs, after the parse
// filled them.
template <typename Options>
void AddConnectedAction(Actions* actions, CLI::App* command, const ConnectionOptions& connection,
                        int (*run)(Connection&, const Options&), const Options& options) {
  actions->emplace_back(command, [&connection, run, &options] {
    return WithConnection(connection, [run, &options](Connection& c) { return run(c, options); });
  });
}

void AddTail(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* tail = app.add_subcommand("tail", "show live op events as they happen");
  tail->footer(
      "Lines look like\n  [OP] LAUNCH elementwise [id=40028] target=cpu:0\n"
      "Examples:\n  optrace tail --level=trace\n  optrace tail --pid 1234 -v\n"
      "  optrace tail --spans --min-duration 1ms --target gpu --json");
  AddWordOption(tail, "--level", &c.tail.level, ParseLevelWord, LevelNameList(),
                "show events up to this level, raising producers to it while the tail runs");
  CLI::Option* session = tail->add_option("--session", c.tail.session_id, "only this session");
  CLI::Option* pid = tail->add_option("--pid", c.tail.pid, "only this process");
  CLI::Option* label = tail->add_option("--label", c.tail.label, "only sessions with this label");
  session->excludes(pid)->excludes(label);
  pid->excludes(label);
  tail->add_option("--name", c.tail.name_pattern,
                   "only ops whose name or tag matches this RE2 pattern");
  AddWordOption(tail, "--target", &c.tail.target, ParseTargetWord, TargetWordList(),
                "only ops on this kind of device");
  tail->add_option_function<uint32_t>(
      "--device", [&c](uint32_t d) { c.tail.device = d; }, "only ops on this device ordinal");
  tail->add_flag("--spans", c.tail.spans,
                 "show completed spans (with durations) instead of events");
  AddDurationOption(tail, "--min-duration", &c.tail.min_duration_ns,
                    "only spans at least this long, e.g. 1ms (implies --spans)");
  tail->add_flag("-v,--verbose", c.tail.verbose, "append pid, tag, duration and source location");
  AddJsonFlag(tail, &c.tail.json, "one JSON object per line");
  AddConnectedAction(actions, tail, c.connection, RunTail, c.tail);
}

void AddLevel(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* level = app.add_subcommand("level", "show or change the live trace level");
  level->require_subcommand(0, 1);
  level->footer(
      "Examples:\n  optrace level\n  optrace level set trace --pid 1234\n"
      "  optrace level set debug --label train\n  optrace level set --clear --pid 1234");
  AddJsonFlag(level, &c.level_get.json, "the levels");
  CLI::App* get = level->add_subcommand("get", "show the default level, rules and each producer's");
  get->footer("Example:\n  optrace level get --json");
  CLI::App* set = level->add_subcommand("set", "change the level globally or for some producers");
  set->footer(
      "Examples:\n  optrace level set info\n  optrace level set trace --session 12\n"
      "  optrace level set --clear --label train");
  set->add_option_function<std::string>(
         "LEVEL", [&c](const std::string& text) { c.level_set.level = ParseLevelWord(text); },
         "the level: " + std::string(LevelNameList()))
      ->type_name("LEVEL")
      ->check(WordValidator(ParseLevelWord, LevelNameList()));
  set->add_flag("--clear", c.level_set.clear, "remove the override of the scope instead");
  CLI::Option* session = set->add_option("--session", c.level_set.session_id, "only this session");
  CLI::Option* pid = set->add_option("--pid", c.level_set.pid, "only this process");
  CLI::Option* label =
      set->add_option("--label", c.level_set.label, "producers with this label, now and later");
  session->excludes(pid)->excludes(label);
  pid->excludes(label);
  AddConnectedAction(actions, set, c.connection, RunLevelSet, c.level_set);
  AddConnectedAction(actions, get, c.connection, RunLevelGet, c.level_get);
  AddConnectedAction(actions, level, c.connection, RunLevelGet, c.level_get);
}

void AddSessions(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* sessions = app.add_subcommand("sessions", "list traced processes (sessions)");
  sessions->require_subcommand(0, 1);
  sessions->footer(
      "Examples:\n  optrace sessions\n  optrace sessions --all --json\n"
      "  optrace sessions show 12");
  sessions->add_flag("-a,--all", c.sessions.all, "include ended sessions");
  sessions->add_option("--limit", c.sessions.limit, "at most this many, newest first (0 = all)");
  AddJsonFlag(sessions, &c.sessions.json, "the sessions");
  CLI::App* show = sessions->add_subcommand("show", "one session and the ops it has open");
  show->footer("Example:\n  optrace sessions show 12");
  show->add_option("SESSION", c.session_show.session_id, "the session id")->required();
  AddJsonFlag(show, &c.session_show.json, "the session");
  AddConnectedAction(actions, show, c.connection, RunSessionShow, c.session_show);
  AddConnectedAction(actions, sessions, c.connection, RunSessions, c.sessions);
}

void AddOps(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* ops = app.add_subcommand("ops", "list a session's ops (spans) in start order");
  ops->footer(
      "Examples:\n  optrace ops 12\n  optrace ops 12 --name '^matmul' --min-duration 1ms\n"
      "  optrace ops 12 --status incomplete --limit 0 --json\n"
      "  optrace ops --fleet --node gpu-7 --name rms_norm --since 1h");
  CLI::Option* session = ops->add_option("SESSION", c.ops.session_id, "the session id");
  AddFleetOptions(ops, &c.ops.fleet, &c.ops.fleet_filter, session, "spans");
  AddFilterOptions(ops, &c.ops.filter);
  ops->add_option("--limit", c.ops.limit, "at most this many spans (0 = all)")
      ->capture_default_str();
  AddJsonFlag(ops, &c.ops.json, "the spans");
  actions->emplace_back(ops, [&c, session] {
    if (auto error = CheckSessionOrFleet(session, c.ops.fleet)) return Fail(*error);
    return WithConnection(c.connection, [&c](Connection& conn) { return RunOps(conn, c.ops); });
  });
}

void AddStats(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* stats = app.add_subcommand("stats", "duration statistics of a session's ops");
  stats->footer(
      "Examples:\n  optrace stats 12\n  optrace stats 12 --by tag --top 10\n"
      "  optrace stats 12 --by target --json\n"
      "  optrace stats --fleet --by tag --name matmul --since 1h\n"
      "  optrace stats --fleet --per-node --name rms_norm");
  CLI::Option* session = stats->add_option("SESSION", c.stats.session_id, "the session id");
  CLI::Option* fleet =
      AddFleetOptions(stats, &c.stats.fleet, &c.stats.fleet_filter, session, "statistics");
  stats->add_flag("--per-node", c.stats.per_node, "with --fleet: one row per group and node")
      ->needs(fleet);
  AddWordOption(stats, "--by", &c.stats.by, ParseGroupByWord, GroupByWordList(), "group ops by");
  stats->add_option("--top", c.stats.top, "only the N groups with the most time (0 = all)");
  AddFilterOptions(stats, &c.stats.filter);
  AddJsonFlag(stats, &c.stats.json, "the statistics");
  actions->emplace_back(stats, [&c, session] {
    if (auto error = CheckSessionOrFleet(session, c.stats.fleet)) return Fail(*error);
    return WithConnection(c.connection, [&c](Connection& conn) { return RunStats(conn, c.stats); });
  });
}

void AddDiff(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* diff = app.add_subcommand("diff", "compare two sessions op by op");
  diff->footer(
      "Examples:\n  optrace diff 12 13\n  optrace diff 12 13 --by tag --json\n"
      "  optrace diff --fleet gpu-3 gpu-7 --since 1h\n"
      "  optrace diff --fleet label=unfused label=fused --by tag");
  diff->add_option("A", c.diff_a,
                   "the first session id (with --fleet: a node, node=NODE, "
                   "label=LABEL, both comma-separated, or *)")
      ->required();
  diff->add_option("B", c.diff_b, "the second session id (with --fleet: as A)")->required();
  AddWordOption(diff, "--by", &c.diff.by, ParseCompareByWord, CompareByWordList(), "group ops by");
  CLI::Option* fleet = diff->add_flag(
      "--fleet", c.diff.fleet,
      "compare spans of the fleet, from the ClickHouse the daemon forwards to, not two sessions");
  for (CLI::Option* filter : AddFilterOptions(diff, &c.diff.filter)) {
    filter->needs(fleet)->group("Fleet filters (with --fleet)");
  }
  AddJsonFlag(diff, &c.diff.json, "the comparison");
  actions->emplace_back(diff, [&c] {
    if (auto error = ParseDiffSides(c.diff_a, c.diff_b, &c.diff)) return Fail(*error);
    return WithConnection(c.connection, [&c](Connection& conn) { return RunDiff(conn, c.diff); });
  });
}

void AddExport(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* exp = app.add_subcommand("export", "write a session to a file");
  exp->footer(
      "Examples:\n  optrace export 12 --format chrome -o run.json\n"
      "  optrace export 12 --format perfetto -o run.pftrace\n"
      "  optrace export 12 --format csv -o run.csv\n"
      "  optrace export 12 --format sqlite -o run.db");
  exp->add_option("SESSION", c.export_.session_id, "the session id")->required();
  AddWordOption(exp, "--format", &c.export_.format, ParseExportFormatWord, ExportFormatWordList(),
                "the file format")
      ->required();
  exp->add_option("-o,--output", c.export_.output, "the file to write")->required();
  AddConnectedAction(actions, exp, c.connection, RunExport, c.export_);
}

void AddStatus(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* status = app.add_subcommand("status", "the daemon's health and loss counters");
  status->footer("Examples:\n  optrace status\n  optrace status --json");
  AddJsonFlag(status, &c.status.json, "the status");
  AddConnectedAction(actions, status, c.connection, RunStatus, c.status);
}

void AddRun(CLI::App& app, Commands& c, Actions* actions) {
  CLI::App* run = app.add_subcommand("run", "run a command traced, then show its top ops");
  run->footer(
      "The summary goes to stderr; the exit code is the command's.\n"
      "Examples:\n  optrace run -- ./my_runtime --steps 10\n"
      "  optrace run --label fused -- optrace-demo --mode fused\n"
      "  optrace run --nvtx -- python train.py\n"
      "  optrace run --torch -- python3 train.py");
  run->add_option("--label", c.run.label, "the session label (OPTRACE_SESSION)");
  AddWordOption(run, "--level", &c.run.level, ParseLevelWord, LevelNameList(),
                "the level the command traces at (OPTRACE_LEVEL; default trace)");
  run->add_flag("--nvtx", c.run.nvtx,
                "also trace the command's NVTX ranges, without changing it (liboptrace_nvtx.so)");
  run->add_flag("--torch", c.run.torch,
                "also trace the command's PyTorch ops, without changing it (optrace.torch)");
  run->add_option("COMMAND", c.run.command, "the command and its arguments, after --")->required();
  AddConnectedAction(actions, run, c.connection, RunRun, c.run);
}

int ParseAndRun(int argc, char** argv) {
  // Named, so that usage lines say "optrace tail", not the binary's path.
  CLI::App app{"optrace: live op tracing for ML and GPU runtimes; talks to the optraced daemon.",
               "optrace"};
  app.set_version_flag("--version", std::string("optrace ") + OPTRACE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.footer(
      "Examples:\n  optrace tail --level=trace\n  optrace sessions --all\n"
      "  optrace stats 12\n  optrace run -- optrace-demo\n"
      "Run `optrace help COMMAND` or `optrace COMMAND --help` for a command's options.");
  Commands c;
  CLI::Option* socket =
      app.add_option("--socket", c.connection.socket,
                     "the daemon's Unix socket (default: $OPTRACE_SOCKET, else the per-user one)")
          ->type_name("PATH");
  CLI::Option* server =
      app.add_option("--server", c.connection.server, "talk to a daemon on TCP HOST:PORT instead")
          ->type_name("HOST:PORT");
  socket->excludes(server);
  app.add_option("--tls-ca", c.connection.tls_ca, "PEM CA file: use TLS with --server")
      ->check(CLI::ExistingFile);

  Actions actions;
  AddTail(app, c, &actions);
  AddLevel(app, c, &actions);
  AddSessions(app, c, &actions);
  AddOps(app, c, &actions);
  AddStats(app, c, &actions);
  AddDiff(app, c, &actions);
  AddExport(app, c, &actions);
  AddStatus(app, c, &actions);
  AddRun(app, c, &actions);
  CLI::App* help = app.add_subcommand("help", "show help, for optrace or one command");
  help->add_option("COMMAND", c.help_topic, "the command");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; the rest is misuse.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (help->parsed()) {
    if (c.help_topic.empty()) {
      std::cout << app.help();
      return kExitOk;
    }
    try {
      std::cout << app.get_subcommand(c.help_topic)->help(app.get_name());
    } catch (const CLI::OptionNotFound&) {
      std::cerr << "optrace: no command " << c.help_topic << "; see optrace help\n";
      return kExitUsage;
    }
    return kExitOk;
  }
  for (const auto& [command, action] : actions) {
    if (command->parsed()) return action();
  }
  std::cout << app.help();
  return kExitUsage;
}

}  // namespace
}  // namespace optrace::cli

int main(int argc, char** argv) { return optrace::cli::ParseAndRun(argc, argv); }
