#include "status_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <map>
#include <memory>

#include "drops_text.h"
#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "terminal.h"

namespace optrace::cli {
namespace {

// "grpc 127.0.0.1:7070, plaintext: callers identified by bearer tokens of 2
// users", or the listener's warning when it serves callers it cannot
// identify.
std::string DescribeListener(const v1::Listener& listener, const Palette& palette) {
  std::string text = fmt::format("{} {}, {}: ", ListenerKindWord(listener.kind()),
                                 listener.address(), listener.tls() ? "TLS" : "plaintext");
  if (listener.unauthenticated()) {
    return text + palette.Paint("warning: " + listener.warning(), Tone::kProblem);
  }
  std::string by;
  if (listener.token_users() > 0) {
    by = listener.kind() == v1::LISTENER_KIND_METRICS
             ? "a bearer token"
             : fmt::format("bearer tokens of {} user{}", listener.token_users(),
                           listener.token_users() == 1 ? "" : "s");
  }
  if (listener.client_certificates())
    by += (by.empty() ? "" : " or ") + std::string("client certificates");
  return text +
         (by.empty() ? "serves no caller (nothing identifies one)" : "callers identified by " + by);
}

}  // namespace

std::string RenderStatus(const v1::GetStatusResponse& status, std::string_view address,
                         const Palette& palette) {
  std::string out;
  auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("{:<11}{}\n", key, value);
  };
  line("daemon", fmt::format("optraced {} at {}, up {}, namespace {}", status.version(), address,
                             FormatDuration(status.uptime_ns()), status.namespace_()));
  line("database", fmt::format("{} ({})", status.db_path(), FormatBytes(status.db_bytes())));
  line("producers",
       fmt::format("{} running sessions, {} attached segments, {} live tails",
                   status.running_sessions(), status.attached_segments(), status.tails()));
  if (status.stored_sessions_size() > 0) {
    std::string stored;
    for (const auto& [state, count] :
         std::map(status.stored_sessions().begin(), status.stored_sessions().end())) {
      stored += fmt::format("{}{} {}", stored.empty() ? "" : ", ", count, state);
    }
    line("stored", stored + " sessions in the database");
  }
  line("ingest", fmt::format("{:.0f} events/s now, {} events in all", status.events_per_second(),
                             status.events_ingested()));
  line("level", fmt::format("default {}", LevelWord(status.default_level())));
  for (int i = 0; i < status.listeners_size(); ++i) {
    line(i == 0 ? "listeners" : "", DescribeListener(status.listeners(i), palette));
  }
  // Live sessions' losses, then every stored session's (ended ones too).
  auto drops = [&palette](std::string_view scope, const v1::Drops& d) {
    return fmt::format(
        "{}: {}", scope,
        palette.Paint(DescribeDrops(d), d.total() > 0 ? Tone::kProblem : Tone::kPlain));
  };
  line("drops", drops("live sessions", status.drops()));
  // Absent from a daemon that could not read its database, or one older
  // than the field.
  line("",
       status.has_all_sessions_drops()
           ? drops("all sessions", status.all_sessions_drops())
           : "all sessions: " + palette.Paint("unknown (the daemon did not say)", Tone::kWarning));
  std::string writer =
      fmt::format("backlog {} batches ({} spans), {} errors", status.writer_backlog_batches(),
                  status.writer_backlog_spans(), status.writer_errors());
  if (!status.writer_last_error().empty()) {
    writer += "; last: " + palette.Paint(status.writer_last_error(), Tone::kProblem);
  }
  line("writer", writer);
  if (status.has_forward()) {
    const v1::ForwardStatus& f = status.forward();
    std::string forward = fmt::format(
        "to {} as node {}: {} spans sent in {} batches, backlog {} spans, {} errors", f.url(),
        f.node(), f.spans_sent(), f.batches_sent(), f.backlog_spans(), f.errors());
    if (f.spans_lost_to_retention() > 0) {
      forward += palette.Paint(
          fmt::format(", {} lost to retention before sending", f.spans_lost_to_retention()),
          Tone::kProblem);
    }
    if (!f.last_error().empty()) {
      forward += "; last: " + palette.Paint(f.last_error(), Tone::kProblem);
    }
    line("forward", forward);
  }
  line("rejected",
       palette.Paint(fmt::format("{} segments, {} ABI violations", status.segments_rejected(),
                                 status.abi_violations()),
                     status.segments_rejected() + status.abi_violations() > 0 ? Tone::kWarning
                                                                              : Tone::kPlain));
  // Sorted for a stable read; zeros are noise here (--json has them all).
  const std::map<std::string, uint64_t> counters(status.counters().begin(),
                                                 status.counters().end());
  std::string nonzero;
  for (const auto& [name, value] : counters) {
    if (value != 0) nonzero += fmt::format("  {} {}\n", name, value);
  }
  if (!nonzero.empty()) out += "counters\n" + nonzero;
  return out;
}

int RunStatus(Connection& connection, const StatusOptions& options) {
  v1::GetStatusResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status =
      connection.stub().GetStatus(context.get(), v1::GetStatusRequest(), &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address()));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
    return kExitOk;
  }
  fmt::print("{}",
             RenderStatus(response, connection.address(), Palette(ColoursWanted(STDOUT_FILENO))));
  return kExitOk;
}

CommandSpec DescribeStatusCommand() {
  auto options = std::make_shared<StatusOptions>();
  CommandSpec status("status", "the daemon's health and loss counters");
  status.footer = "Examples:\n  optrace status\n  optrace status --json";
  status.AddJsonFlag(&options->json, "the status");
  status.run = [options](Connection& connection) { return RunStatus(connection, *options); };
  return status;
}

}  // namespace optrace::cli
