// `optrace ops SESSION [filters] [--limit N] [--json]`: a session's spans,
// ordered by start time, as a table or a JSON document. With --fleet
// instead of SESSION (and --node, --label): every node's spans in
// ClickHouse, with node and session columns.
#ifndef OPTRACE_CLI_OPS_COMMAND_H_
#define OPTRACE_CLI_OPS_COMMAND_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "command_spec.h"
#include "connection.h"
#include "fleet_filter.h"
#include "op_filter.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

// Spans asked of the daemon per QueryOps call when there is no --limit.
inline constexpr uint32_t kOpsPageSize = 10000;

struct OpsOptions {
  uint64_t session_id = 0;  // 0 with fleet
  OpFilterOptions filter;
  uint32_t limit = 100;  // spans printed; 0 = all
  bool json = false;
  bool fleet = false;
  FleetFilterOptions fleet_filter;
  bool source = false;  // a SOURCE column: each span's line of its listing
};

// The text of each source location's line ("model.py:37" -> "return
// self.fc2(x)"), "" where the session has no listing of it.
using SourceTexts = std::map<std::string, std::string>;

// The SOURCE column cuts a line's text to this many columns.
inline constexpr size_t kSourceTextWidth = 48;

// Prints the spans; returns the exit code (NOT_FOUND: "no session N", 1).
int RunOps(Connection& connection, const OpsOptions& options);

// The table: START (offset from `start_unix_ns`: the session's start, or
// for the fleet the first span's), then with `fleet` NODE and SESSION, then
// ID, NAME, TAG, DEVICE, DURATION, ON DEVICE, STATUS, and with `sources`
// SOURCE: the text of the span's line, stripped of surrounding blanks and
// cut to kSourceTextWidth ("" for a location `sources` lacks). `width` as
// Table::Render.
std::string RenderOpsTable(const std::vector<v1::Span>& spans, int64_t start_unix_ns, size_t width,
                           const Palette& palette, bool fleet = false,
                           const SourceTexts* sources = nullptr);

// `optrace ops`: its options, bound to OpsOptions it owns, and RunOps.
CommandSpec DescribeOpsCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_OPS_COMMAND_H_
