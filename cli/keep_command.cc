#include "keep_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <limits>
#include <memory>

#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"

namespace optrace::cli {
namespace {

uint64_t LengthNs(const v1::Keep& keep) {
  return static_cast<uint64_t>(keep.last_unix_ns()) - static_cast<uint64_t>(keep.first_unix_ns());
}

}  // namespace

std::string RenderKeepLine(const v1::Keep& keep) {
  return fmt::format("kept session {} from {} to {} ({}, {}): {}\n", keep.session_id(),
                     FormatWallTime(keep.first_unix_ns()), FormatWallTime(keep.last_unix_ns()),
                     FormatDuration(LengthNs(keep)), FormatBytes(keep.bytes()), keep.reason());
}

std::string RenderKeepsTable(const v1::ListKeepsResponse& keeps, size_t width) {
  if (keeps.keeps().empty()) return "no keeps\n";
  Table table({{"FROM", Align::kLeft},
               {"TO", Align::kLeft},
               {"LENGTH", Align::kRight},
               {"BYTES", Align::kRight},
               {"REASON", Align::kLeft, true}});
  for (const v1::Keep& keep : keeps.keeps()) {
    table.AddRow({FormatWallTime(keep.first_unix_ns()), FormatWallTime(keep.last_unix_ns()),
                  FormatDuration(LengthNs(keep)), FormatBytes(keep.bytes()), keep.reason()});
  }
  return table.Render(width, Palette(false));
}

int RunKeep(Connection& connection, const KeepOptions& options) {
  v1::KeepRangeRequest request;
  request.set_session_id(options.session_id);
  // No --last: a duration longer than any session keeps all it stored.
  request.set_last_ns(options.last_ns > 0 ? options.last_ns : std::numeric_limits<int64_t>::max());
  request.set_reason(options.reason);
  v1::KeepRangeResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().KeepRange(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  if (options.json) {
    fmt::print("{}\n", ToJson(response.keep()).dump(2));
  } else {
    fmt::print("{}", RenderKeepLine(response.keep()));
  }
  return kExitOk;
}

int RunKeeps(Connection& connection, const KeepsOptions& options) {
  v1::ListKeepsRequest request;
  request.set_session_id(options.session_id);
  v1::ListKeepsResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().ListKeeps(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
  } else {
    fmt::print("{}", RenderKeepsTable(response, OutputWidth(STDOUT_FILENO)));
  }
  return kExitOk;
}

CommandSpec DescribeKeepCommand() {
  auto options = std::make_shared<KeepOptions>();
  CommandSpec keep("keep", "keep a range of a session: its rolling window never trims it");
  keep.footer =
      "Examples:\n  optrace keep 12 --last 30s --reason \"loss spike\"\n  optrace keep 12\n"
      "A keep merges with the session's keeps it overlaps; past a keep budget the daemon\n"
      "refuses it (docs/daemon.md, keeps).";
  keep.Add("SESSION", &options->session_id, "the session id").Required();
  keep.AddDuration("--last", &options->last_ns,
                   "keep the last D before the session's newest span (default: all it stored)");
  keep.Add("--reason", &options->reason, "why, as `optrace keeps` shows it (default \"keep\")");
  keep.AddJsonFlag(&options->json, "the stored keep");
  keep.run = [options](Connection& connection) { return RunKeep(connection, *options); };
  return keep;
}

CommandSpec DescribeKeepsCommand() {
  auto options = std::make_shared<KeepsOptions>();
  CommandSpec keeps("keeps", "the kept ranges of a session, with their reason and size");
  keeps.footer = "Examples:\n  optrace keeps 12\n  optrace keeps 12 --json";
  keeps.Add("SESSION", &options->session_id, "the session id").Required();
  keeps.AddJsonFlag(&options->json, "the keeps");
  keeps.run = [options](Connection& connection) { return RunKeeps(connection, *options); };
  return keeps;
}

}  // namespace optrace::cli
