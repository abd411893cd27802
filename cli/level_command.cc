#include "level_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <memory>

#include "common/level_names.h"
#include "exit_codes.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"

namespace optrace::cli {
namespace {

// "pid 1234", "session 7", "label train", or "" for the global default.
std::string ScopeWords(const LevelSetOptions& options) {
  if (options.session_id != 0) return fmt::format("session {}", options.session_id);
  if (options.pid != 0) return fmt::format("pid {}", options.pid);
  if (!options.label.empty()) return fmt::format("label {}", options.label);
  return "";
}

}  // namespace

std::string RenderLevels(const v1::GetLevelResponse& levels, size_t width, const Palette& palette) {
  std::string out = fmt::format("default level: {}\n", LevelWord(levels.default_level()));
  for (const v1::LevelRule& rule : levels.rules()) {
    out += fmt::format("rule: label {} -> {}\n", rule.label_pattern(), LevelWord(rule.level()));
  }
  if (levels.producers().empty()) return out + "no live producers\n";
  Table table({{"SESSION", Align::kRight},
               {"PID", Align::kRight},
               {"LABEL", Align::kLeft, true},
               {"LIVE", Align::kLeft},
               {"REQUESTED", Align::kLeft},
               {"OVERRIDE", Align::kLeft},
               {"TAIL", Align::kLeft}});
  for (const v1::ProducerLevel& p : levels.producers()) {
    table.AddRow({std::to_string(p.session_id()), std::to_string(p.pid()),
                  p.label().empty() ? "-" : p.label(),
                  Cell(std::string(LevelWord(p.live())), Tone::kLaunch),
                  std::string(LevelWord(p.requested())), std::string(LevelWord(p.override())),
                  std::string(LevelWord(p.tail()))});
  }
  return out + table.Render(width, palette);
}

std::string DescribeSetLevel(const LevelSetOptions& options, const v1::SetLevelResponse& response) {
  const std::string scope = ScopeWords(options);
  const uint32_t reached = response.producers_reached();
  const std::string tail = fmt::format("reached {} producer{}", reached, reached == 1 ? "" : "s");
  if (options.clear) {
    return scope.empty() ? fmt::format("default level reset to the configured one; {}", tail)
                         : fmt::format("override cleared for {}; {}", scope, tail);
  }
  const v1::Level level =
      response.level() != v1::LEVEL_UNSPECIFIED ? response.level() : *options.level;
  return scope.empty() ? fmt::format("default level set to {}; {}", LevelWord(level), tail)
                       : fmt::format("level {} set for {}; {}", LevelWord(level), scope, tail);
}

int RunLevelGet(Connection& connection, const LevelGetOptions& options) {
  v1::GetLevelResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status =
      connection.stub().GetLevel(context.get(), v1::GetLevelRequest(), &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address()));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
    return kExitOk;
  }
  fmt::print("{}", RenderLevels(response, OutputWidth(STDOUT_FILENO),
                                Palette(ColoursWanted(STDOUT_FILENO))));
  return kExitOk;
}

int RunLevelSet(Connection& connection, const LevelSetOptions& options) {
  if (options.clear == options.level.has_value()) {
    return Fail(
        {kExitUsage, fmt::format("level set needs either LEVEL ({}) or --clear", LevelNameList())});
  }
  v1::SetLevelRequest request;
  if (options.level) request.set_level(*options.level);
  request.set_clear(options.clear);
  request.set_session_id(options.session_id);
  request.set_pid(options.pid);
  request.set_label(options.label);
  v1::SetLevelResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().SetLevel(context.get(), request, &response);
  if (!status.ok()) {
    return Fail(
        ErrorFromRpc(status, connection.address(),
                     options.session_id != 0 ? std::optional(options.session_id) : std::nullopt));
  }
  fmt::print("{}\n", DescribeSetLevel(options, response));
  return kExitOk;
}

CommandSpec DescribeLevelCommand() {
  auto get_options = std::make_shared<LevelGetOptions>();
  auto set_options = std::make_shared<LevelSetOptions>();
  CommandSpec level("level", "show or change the live trace level");
  level.at_most_one_subcommand = true;
  level.footer =
      "Examples:\n  optrace level\n  optrace level set trace --pid 1234\n"
      "  optrace level set debug --label train\n  optrace level set --clear --pid 1234";
  level.AddJsonFlag(&get_options->json, "the levels");
  auto run_get = [get_options](Connection& connection) {
    return RunLevelGet(connection, *get_options);
  };
  level.run = run_get;
  CommandSpec& get =
      level.AddSubcommand("get", "show the default level, rules and each producer's");
  get.footer = "Example:\n  optrace level get --json";
  get.run = run_get;
  CommandSpec& set = level.AddSubcommand("set", "change the level globally or for some producers");
  set.footer =
      "Examples:\n  optrace level set info\n  optrace level set trace --session 12\n"
      "  optrace level set --clear --label train";
  OptionSpec& word = set.AddWord(
      "LEVEL", Word(&set_options->level, ParseLevelWord, std::string(LevelNameList())), "");
  word.help = "the level: " + std::string(LevelNameList());
  word.type_name = "LEVEL";
  set.AddFlag("--clear", &set_options->clear, "remove the override of the scope instead");
  set.Add("--session", &set_options->session_id, "only this session")
      .Excludes("--pid")
      .Excludes("--label");
  set.Add("--pid", &set_options->pid, "only this process").Excludes("--label");
  set.Add("--label", &set_options->label, "producers with this label, now and later");
  set.run = [set_options](Connection& connection) { return RunLevelSet(connection, *set_options); };
  return level;
}

}  // namespace optrace::cli
