// `optrace stats SESSION [--by name|tag|target] [--top N] [--threads]
// [filters] [--json]`: duration statistics per group, heaviest first, with
// a bar for each group's share of the session's op time; with --threads,
// each thread's busy share apart. With --fleet instead of
// SESSION (and --node, --label, --per-node): the same over every node's
// spans in ClickHouse, with a node column.
#ifndef OPTRACE_CLI_STATS_COMMAND_H_
#define OPTRACE_CLI_STATS_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "fleet_filter.h"
#include "op_filter.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

// Columns of the share-of-time bar.
inline constexpr size_t kShareBarWidth = 20;

struct StatsOptions {
  uint64_t session_id = 0;  // 0 with fleet
  v1::GroupBy by = v1::GROUP_BY_NAME;
  uint32_t top = 0;  // 0 = every group
  OpFilterOptions filter;
  bool json = false;
  bool fleet = false;
  FleetFilterOptions fleet_filter;
  bool per_node = false;  // fleet: one row per group and node
  bool exact = false;     // a pass over the stored spans even when aggregates could answer
  bool threads = false;   // also each thread's busy share (one session)
  v1::StatsSort sort = v1::STATS_SORT_TOTAL;
};

// The node column of a statistics table: none (one session), how many
// nodes a fleet row covers (NODES), or the node of a per-node row (NODE).
enum class NodeColumn { kNone, kNodeCount, kNodeName };

// Prints the statistics; returns the exit code (NOT_FOUND: "no session N").
int RunStats(Connection& connection, const StatsOptions& options);

// Fetches the statistics of `request.session_id()` into `response`.
grpc::Status FetchStats(Connection& connection, const v1::GetStatsRequest& request,
                        v1::GetStatsResponse* response);

// The table: the group key (header from `by`: NAME, TAG or DEVICE), the
// node column if any, COUNT, TOTAL, SELF, MEAN, P50, P95, P99, MAX, SHARE,
// SELF% and the bar of the share `sort` orders by, in the daemon's order
// (largest first), then one line with the span count and the op time
// (self time, and the total with nesting where it differs), and for one
// session where the figures came from ("whole session, from aggregates;
// percentiles ±0.8%", or "over the stored spans; exact percentiles").
// Fleet tables (`nodes` not kNone) have no SELF and SELF% columns: self
// time is not forwarded. `width` as Table::Render.
std::string RenderStatsTable(const v1::GetStatsResponse& stats, v1::GroupBy by, size_t width,
                             const Palette& palette, NodeColumn nodes = NodeColumn::kNone,
                             v1::StatsSort sort = v1::STATS_SORT_TOTAL);

// The threads of `stats` (GetStatsRequest.threads) as a table: THREAD (the
// tid), OPS, BUSY (their self time), WALL (first op's start to last op's
// end) and BUSY% (BUSY over WALL), busiest first; then one line saying how
// many threads there are and what the share means. `width` as
// Table::Render.
std::string RenderThreadTable(const v1::GetStatsResponse& stats, size_t width);

// `optrace stats`: its options, bound to StatsOptions it owns, and RunStats.
CommandSpec DescribeStatsCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_STATS_COMMAND_H_
