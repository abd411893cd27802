// `optrace tail [--level=LEVEL] [--session ID|--pid PID|--label L]
// [--name RE] [--target cpu|gpu|other] [--device N] [--spans]
// [--min-duration D] [-v] [--json]`: the live stream, one line per item
// (tail_line.h) or one JSON object per line, until Ctrl-C (exit 0) or the
// daemon ends it.
#ifndef OPTRACE_CLI_TAIL_COMMAND_H_
#define OPTRACE_CLI_TAIL_COMMAND_H_

#include <cstdint>
#include <optional>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct TailOptions {
  std::optional<v1::Level> level;  // nullopt: the daemon's default (trace)
  uint64_t session_id = 0;
  uint32_t pid = 0;
  std::string label;
  std::string name_pattern;
  std::optional<v1::Target> target;
  std::optional<uint32_t> device;
  bool spans = false;            // completed spans instead of events
  uint64_t min_duration_ns = 0;  // implies `spans`: only spans have durations
  bool verbose = false;
  bool json = false;
};

// The request for `options`: events, or spans when `spans` or a minimum
// duration is asked for.
v1::TailRequest BuildTailRequest(const TailOptions& options);

// Streams until interrupted (exit 0), the daemon ends the stream (exit 0)
// or a call fails (rpc_error.h). Stdout is line-buffered while it runs, so
// every line reaches a pipe at once.
int RunTail(Connection& connection, const TailOptions& options);

// `optrace tail`: its options, bound to TailOptions it owns, and RunTail.
CommandSpec DescribeTailCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TAIL_COMMAND_H_
