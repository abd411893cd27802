// `optrace ops SESSION [filters] [--limit N] [--json]`: a session's spans,
// ordered by start time, as a table or a JSON document.
#ifndef OPTRACE_CLI_OPS_COMMAND_H_
#define OPTRACE_CLI_OPS_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "connection.h"
#include "op_filter.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

// Spans asked of the daemon per QueryOps call when there is no --limit.
inline constexpr uint32_t kOpsPageSize = 10000;

struct OpsOptions {
  uint64_t session_id = 0;
  OpFilterOptions filter;
  uint32_t limit = 100;  // spans printed; 0 = all
  bool json = false;
};

// Prints the spans; returns the exit code (NOT_FOUND: "no session N", 1).
int RunOps(Connection& connection, const OpsOptions& options);

// The table: START (offset from `session_start_unix_ns`), ID, NAME, TAG,
// DEVICE, DURATION, ON DEVICE, STATUS. `width` as Table::Render.
std::string RenderOpsTable(const std::vector<v1::Span>& spans, int64_t session_start_unix_ns,
                           size_t width, const Palette& palette);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_OPS_COMMAND_H_
