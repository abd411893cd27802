// `optrace keep SESSION [--last D] [--reason TEXT] [--json]`: keeps a range
// of a session, so that its rolling window never trims it;
// `optrace keeps SESSION [--json]`: the session's kept ranges.
#ifndef OPTRACE_CLI_KEEP_COMMAND_H_
#define OPTRACE_CLI_KEEP_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct KeepOptions {
  uint64_t session_id = 0;
  uint64_t last_ns = 0;  // 0 = everything the session has stored
  std::string reason;
  bool json = false;
};

struct KeepsOptions {
  uint64_t session_id = 0;
  bool json = false;
};

// Keeps the range and prints the keep the daemon stored (merged with its
// neighbours); returns the exit code (a refused budget: its message, exit 1).
int RunKeep(Connection& connection, const KeepOptions& options);

// Prints the session's keeps; returns the exit code.
int RunKeeps(Connection& connection, const KeepsOptions& options);

// One keep in a line: "kept session 12 from 2024-05-01 14:03:07 to
// 14:03:37 (30.0 s, 1.20 MiB): crash".
std::string RenderKeepLine(const v1::Keep& keep);

// The table: FROM, TO, LENGTH, BYTES, REASON, by start; "no keeps" when empty.
// `width` as Table::Render.
std::string RenderKeepsTable(const v1::ListKeepsResponse& keeps, size_t width);

// `optrace keep` and `optrace keeps`: their options, bound to options they
// own, and RunKeep / RunKeeps.
CommandSpec DescribeKeepCommand();
CommandSpec DescribeKeepsCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_KEEP_COMMAND_H_
