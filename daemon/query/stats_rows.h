// The last steps of GetStats, shared by one session's statistics and the
// fleet's: shares, means, order and `top`.
#ifndef OPTRACE_DAEMON_QUERY_STATS_ROWS_H_
#define OPTRACE_DAEMON_QUERY_STATS_ROWS_H_

#include <cstdint>
#include <vector>

#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Fills `response` from `rows`, whose key, count, ok_count, total_ns,
// min_ns, max_ns and percentiles (and, for the fleet, node and nodes) are
// set: each row's mean_ns = total / ok_count and share = total / the sum
// of every row's total (capped like AddCapped; 0 when it is 0); rows by
// total, largest first, ties by key then node; only the first `top` (0 =
// all). response->total_ns is that sum and response->spans `spans`, both
// over every row, before `top`. Thread rules: pure.
void FinishStatsResponse(std::vector<v1::OpStats> rows, uint32_t top, uint64_t spans,
                         v1::GetStatsResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STATS_ROWS_H_
