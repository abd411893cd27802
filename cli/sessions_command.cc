#include "sessions_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "drops_text.h"
#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"
#include "trim_notice.h"
#include "wall_clock.h"
#include "window_command.h"

namespace optrace::cli {
namespace {

Tone StateTone(v1::SessionState state) {
  switch (state) {
    case v1::SESSION_STATE_RUNNING:
      return Tone::kLaunch;
    case v1::SESSION_STATE_CRASHED:
      return Tone::kProblem;
    default:
      return Tone::kPlain;
  }
}

// Why a session's pid may be unverified, and what the list's "?" means.
constexpr std::string_view kUnverifiedPidReason =
    "it runs in another PID namespace, such as a container, or its pid is not its own";
constexpr std::string_view kUnverifiedPidNote =
    "PID?: the pid the producer reports, not verified by the daemon (another PID namespace, "
    "such as a container, or a pid not its own)";

}  // namespace

uint64_t SessionDurationNs(const v1::Session& session, int64_t now_unix_ns) {
  const int64_t end = session.end_unix_ns() != 0 ? session.end_unix_ns() : now_unix_ns;
  return end > session.start_unix_ns() ? static_cast<uint64_t>(end - session.start_unix_ns()) : 0;
}

std::string RenderSessionsTable(const v1::ListSessionsResponse& sessions, bool all,
                                int64_t now_unix_ns, size_t width, const Palette& palette) {
  if (sessions.sessions().empty()) {
    return all ? "no sessions recorded yet\n"
               : "no running sessions; `optrace sessions --all` shows ended ones too\n";
  }
  Table table({{"ID", Align::kRight},
               {"LABEL", Align::kLeft, true},
               {"PID", Align::kRight},
               {"EXECUTABLE", Align::kLeft, true},
               {"START", Align::kLeft},
               {"DURATION", Align::kRight},
               {"OPS", Align::kRight},
               {"DROPS", Align::kRight},
               {"TRIMMED", Align::kRight},
               {"STATE", Align::kLeft}});
  bool any_unverified = false;
  for (const v1::Session& s : sessions.sessions()) {
    any_unverified = any_unverified || s.pid_unverified();
    table.AddRow({std::to_string(s.id()), s.label().empty() ? "-" : s.label(),
                  std::to_string(s.pid()) + (s.pid_unverified() ? "?" : ""),
                  std::filesystem::path(s.executable()).filename().string(),
                  FormatWallTime(s.start_unix_ns()),
                  FormatDuration(SessionDurationNs(s, now_unix_ns)), std::to_string(s.spans()),
                  Cell(std::to_string(s.drops().total()),
                       s.drops().total() > 0 ? Tone::kWarning : Tone::kPlain),
                  std::to_string(s.spans_trimmed()),
                  Cell(std::string(SessionStateWord(s.state())), StateTone(s.state()))});
  }
  std::string out = table.Render(width, palette);
  if (any_unverified) out += std::string(kUnverifiedPidNote) + "\n";
  return out;
}

std::string RenderSessionDetail(const v1::GetSessionResponse& response, int64_t now_unix_ns,
                                const Palette& palette) {
  const v1::Session& s = response.session();
  const bool running = s.state() == v1::SESSION_STATE_RUNNING;
  std::string out = fmt::format("session {}  {}\n", s.id(),
                                palette.Paint(SessionStateWord(s.state()), StateTone(s.state())));
  auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("  {:<11}{}\n", key, value);
  };
  line("label", s.label().empty() ? "-" : s.label());
  line("process", s.pid_unverified()
                      ? fmt::format("pid {} (the producer's own, not verified: {}), uid {}",
                                    s.pid(), kUnverifiedPidReason, s.uid())
                      : fmt::format("pid {}, uid {}", s.pid(), s.uid()));
  line("command", s.command_line().empty() ? s.executable() : s.command_line());
  line("started", FormatWallTime(s.start_unix_ns()));
  line(running ? "running" : "ended",
       running ? fmt::format("for {}", FormatDuration(SessionDurationNs(s, now_unix_ns)))
               : fmt::format("{}, after {}", FormatWallTime(s.end_unix_ns()),
                             FormatDuration(SessionDurationNs(s, now_unix_ns))));
  line("recorded", fmt::format("{} events, {} spans, {} marks and counters", s.events(), s.spans(),
                               s.instants()));
  line("drops", DescribeDrops(s.drops()));
  if (WasTrimmed(s)) {
    line("trimmed", fmt::format("{} spans, {} marks and counters; every span after {} is stored",
                                s.spans_trimmed(), s.instants_trimmed(),
                                FormatWallTime(s.trimmed_before_unix_ns())));
  }
  if (s.full_ring_wait_ns() > 0 || s.full_ring_wait_timeouts() > 0) {
    line("waited", fmt::format("{} for room in full rings (lossless mode), {} waits ran out",
                               FormatDuration(s.full_ring_wait_ns()), s.full_ring_wait_timeouts()));
  }
  if (const v1::Listings& l = s.listings();
      l.stored() > 0 || l.refused() > 0 || l.dropped() > 0 || l.capped() > 0) {
    line("listings", fmt::format("{} stored (optrace source), {} refused (unreadable files), {} "
                                 "dropped (listing area full), {} capped (daemon's caps)",
                                 l.stored(), l.refused(), l.dropped(), l.capped()));
  }
  if (running && s.live_level() != v1::LEVEL_UNSPECIFIED) {
    line("level", std::string(LevelWord(s.live_level())));
  }
  if (running) line("window", DescribeWindow(s.window()));
  if (response.open_ops().empty()) {
    out += running ? "no ops open\n" : "no ops left open\n";
    return out;
  }
  out += running ? fmt::format("{} ops open, oldest first:\n", response.open_ops_size())
                 : fmt::format("{} ops left open (incomplete), oldest first:\n",
                               response.open_ops_size());
  for (const v1::OpenOp& op : response.open_ops()) {
    std::string entry = fmt::format("  {} id={} {} open for {}", op.name(), op.op_id(),
                                    DeviceWord(op.device()), FormatDuration(op.open_for_ns()));
    if (!op.tag().empty()) entry += " tag=" + op.tag();
    if (!op.source_location().empty()) entry += " src=" + op.source_location();
    out += palette.Paint(entry, running ? Tone::kWarning : Tone::kProblem) + "\n";
  }
  return out;
}

int RunSessions(Connection& connection, const SessionsOptions& options) {
  v1::ListSessionsRequest request;
  request.set_all(options.all);
  request.set_limit(options.limit);
  v1::ListSessionsResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().ListSessions(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address()));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
    return kExitOk;
  }
  fmt::print("{}",
             RenderSessionsTable(response, options.all, NowUnixNs(), OutputWidth(STDOUT_FILENO),
                                 Palette(ColoursWanted(STDOUT_FILENO))));
  return kExitOk;
}

int RunSessionShow(Connection& connection, const SessionShowOptions& options) {
  v1::GetSessionRequest request;
  request.set_session_id(options.session_id);
  v1::GetSessionResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().GetSession(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
    return kExitOk;
  }
  fmt::print("{}",
             RenderSessionDetail(response, NowUnixNs(), Palette(ColoursWanted(STDOUT_FILENO))));
  return kExitOk;
}

CommandSpec DescribeSessionsCommand() {
  auto list_options = std::make_shared<SessionsOptions>();
  auto show_options = std::make_shared<SessionShowOptions>();
  CommandSpec sessions("sessions", "list traced processes (sessions)");
  sessions.at_most_one_subcommand = true;
  sessions.footer =
      "Examples:\n  optrace sessions\n  optrace sessions --all --json\n"
      "  optrace sessions show 12";
  sessions.AddFlag("-a,--all", &list_options->all, "include ended sessions");
  sessions.Add("--limit", &list_options->limit, "at most this many, newest first (0 = all)");
  sessions.AddJsonFlag(&list_options->json, "the sessions");
  sessions.run = [list_options](Connection& connection) {
    return RunSessions(connection, *list_options);
  };
  CommandSpec& show = sessions.AddSubcommand("show", "one session and the ops it has open");
  show.footer = "Example:\n  optrace sessions show 12";
  show.Add("SESSION", &show_options->session_id, "the session id").Required();
  show.AddJsonFlag(&show_options->json, "the session");
  show.run = [show_options](Connection& connection) {
    return RunSessionShow(connection, *show_options);
  };
  return sessions;
}

}  // namespace optrace::cli
