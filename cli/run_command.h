// `optrace run [--label L] [--level LEVEL] [--nvtx [--step-range NAME]] [--torch] -- CMD
// ARGS...`: runs CMD traced (OPTRACE_SESSION=L, OPTRACE_LEVEL=LEVEL,
// OPTRACE_NAMESPACE passed through; with --nvtx, NVTX_INJECTION64_PATH set
// to liboptrace_nvtx.so, and CUDA_INJECTION64_PATH to liboptrace_cupti.so
// when it is beside it, and with --step-range OPTRACE_NVTX_STEP_RANGE=NAME,
// which makes the pushed NVTX ranges of that name steps; with
// --torch, PYTHONPATH led by the folder of optrace's sitecustomize.py, which
// enables optrace.torch when the program imports torch), waits
// for it, then finds its session and prints, on stderr so
// that CMD's stdout stays its own, the session id and its top ops by time.
// Exits with CMD's exit code (128 + signal when a signal killed it).
#ifndef OPTRACE_CLI_RUN_COMMAND_H_
#define OPTRACE_CLI_RUN_COMMAND_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "window_command.h"

namespace optrace::cli {

// How long to wait for the daemon to see the command's exit and finalise
// its session.
inline constexpr std::chrono::seconds kSessionSettleTimeout{5};
// Ops listed after the command ends.
inline constexpr uint32_t kRunTopOps = 5;
// Exit code when CMD cannot be started (as shells say "not found").
inline constexpr int kExitCannotRun = 127;

struct RunOptions {
  std::string label;  // "" = leave OPTRACE_SESSION alone
  v1::Level level = v1::LEVEL_TRACE;
  bool nvtx = false;                 // trace the command's NVTX ranges (liboptrace_nvtx.so)
  std::string step_range;            // with nvtx: the pushed ranges that are steps ("" = none)
  bool torch = false;                // trace its PyTorch ops (PYTHONPATH gets the torch hook)
  bool lossless = false;             // OPTRACE_FULL_RING=wait: full rings wait, bounded
  WindowChange window;               // --keep-last, --keep-last-bytes: the session's own window
  std::vector<std::string> command;  // REQUIRES: not empty
};

// Runs the command and reports; returns the command's exit code, or
// kExitCannotRun when it could not be started.
int RunRun(Connection& connection, const RunOptions& options);

// The session of process `pid` started at or after `started_unix_ns` among
// `sessions` (newest first), if any.
std::optional<v1::Session> FindRunSession(const v1::ListSessionsResponse& sessions, pid_t pid,
                                          int64_t started_unix_ns);

// `optrace run`: its options, bound to RunOptions it owns, and RunRun.
CommandSpec DescribeRunCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_RUN_COMMAND_H_
