#include "window_command.h"

#include <fmt/core.h>

#include <memory>

#include "common/byte_size.h"
#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "rpc_error.h"

namespace optrace::cli {

v1::SetWindowRequest WindowRequest(uint64_t session_id, const v1::Window& in_force,
                                   const WindowChange& change) {
  v1::SetWindowRequest request;
  request.set_session_id(session_id);
  if (change.use_default) {
    request.set_use_default(true);
    return request;
  }
  request.set_keep_last_ns(change.keep_last_ns.value_or(in_force.keep_last_ns()));
  request.set_keep_last_bytes(change.keep_last_bytes.value_or(in_force.keep_last_bytes()));
  return request;
}

grpc::Status ApplyWindowChange(Connection& connection, const v1::Session& session,
                               const WindowChange& change, v1::Window* in_force) {
  const v1::SetWindowRequest request = WindowRequest(session.id(), session.window(), change);
  v1::SetWindowResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().SetWindow(context.get(), request, &response);
  if (status.ok()) *in_force = response.window();
  return status;
}

std::string DescribeWindow(const v1::Window& window) {
  const char* whose = window.own() ? "its own window" : "the daemon's window";
  if (window.keep_last_ns() == 0 && window.keep_last_bytes() == 0) {
    return fmt::format("keeps all it stores ({})", whose);
  }
  std::string bounds;
  if (window.keep_last_ns() > 0) bounds = "the last " + FormatDuration(window.keep_last_ns());
  if (window.keep_last_bytes() > 0) {
    bounds += (bounds.empty() ? "at most " : ", at most ") + FormatBytes(window.keep_last_bytes());
  }
  return fmt::format("keeps {} ({})", bounds, whose);
}

std::string RenderWindowLine(uint64_t session_id, const v1::Window& window) {
  return fmt::format("session {}: {}\n", session_id, DescribeWindow(window));
}

int RunWindow(Connection& connection, const WindowOptions& options) {
  v1::GetSessionRequest get;
  get.set_session_id(options.session_id);
  v1::GetSessionResponse session;
  const auto context = connection.NewContext();
  grpc::Status status = connection.stub().GetSession(context.get(), get, &session);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  v1::Window window = session.session().window();
  if (options.change.any()) {
    status = ApplyWindowChange(connection, session.session(), options.change, &window);
    if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  }
  if (options.json) {
    fmt::print("{}\n", ToJson(options.session_id, window).dump(2));
  } else {
    fmt::print("{}", RenderWindowLine(options.session_id, window));
  }
  return kExitOk;
}

void AddWindowOptions(CommandSpec& command, WindowChange* change) {
  command.AddWord("--keep-last",
                  Word(&change->keep_last_ns, &ParseDuration, "a duration such as 30s or 1h"),
                  "keep the spans of the last D before the newest (0: no bound by time)");
  command.AddWord("--keep-last-bytes",
                  Word(&change->keep_last_bytes, &ParseByteSize, "a size such as 64MiB"),
                  "keep at most N of span pages (0: no bound by size)");
}

CommandSpec DescribeWindowCommand() {
  auto options = std::make_shared<WindowOptions>();
  CommandSpec window("window", "show or set the rolling window of a running session");
  window.footer =
      "Examples:\n  optrace window 12\n  optrace window 12 --keep-last 1h\n"
      "  optrace window 12 --keep-last 0 --keep-last-bytes 0   (keep all it stores)\n"
      "  optrace window 12 --default\n"
      "A bound not given stays as it is. The database's caps still win over any window\n"
      "(docs/daemon.md, the rolling window).";
  window.Add("SESSION", &options->session_id, "the session id").Required();
  AddWindowOptions(window, &options->change);
  window.AddFlag("--default", &options->change.use_default, "back to the daemon's window")
      .Excludes("--keep-last")
      .Excludes("--keep-last-bytes");
  window.AddJsonFlag(&options->json, "the window in force");
  window.run = [options](Connection& connection) { return RunWindow(connection, *options); };
  return window;
}

}  // namespace optrace::cli
