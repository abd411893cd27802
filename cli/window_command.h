// `optrace window SESSION [--keep-last D] [--keep-last-bytes N] [--default]
// [--json]`: shows or sets the rolling window of a running session (its
// own, or the daemon's again). `optrace run --keep-last` uses the same
// change on the session of the command it runs.
#ifndef OPTRACE_CLI_WINDOW_COMMAND_H_
#define OPTRACE_CLI_WINDOW_COMMAND_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <optional>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// What a user asks of a session's window. A bound not given stays as the
// window in force has it, so that `--keep-last 1h` changes only the time.
struct WindowChange {
  std::optional<uint64_t> keep_last_ns;
  std::optional<uint64_t> keep_last_bytes;
  bool use_default = false;  // back to the daemon's window

  bool any() const { return keep_last_ns || keep_last_bytes || use_default; }
};

struct WindowOptions {
  uint64_t session_id = 0;
  WindowChange change;  // none: show the window
  bool json = false;
};

// The SetWindow request that applies `change` to session `session_id`,
// whose window in force is `in_force`. REQUIRES: change.any().
v1::SetWindowRequest WindowRequest(uint64_t session_id, const v1::Window& in_force,
                                   const WindowChange& change);

// Applies `change` to `session` (as the daemon listed it) and sets
// `*in_force` to the window the daemon has for it now.
grpc::Status ApplyWindowChange(Connection& connection, const v1::Session& session,
                               const WindowChange& change, v1::Window* in_force);

// "keeps the last 30.0 s, at most 64.0 MiB (its own window)"; "keeps all
// it stores (...)" when the window has no bound.
std::string DescribeWindow(const v1::Window& window);

// "session 12: " + DescribeWindow + a newline: `optrace window`'s answer.
std::string RenderWindowLine(uint64_t session_id, const v1::Window& window);

// Shows or changes the window; returns the exit code.
int RunWindow(Connection& connection, const WindowOptions& options);

// The --keep-last and --keep-last-bytes options of `command`, into `*change`.
void AddWindowOptions(CommandSpec& command, WindowChange* change);

// `optrace window`: its options, bound to WindowOptions it owns, and RunWindow.
CommandSpec DescribeWindowCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_WINDOW_COMMAND_H_
