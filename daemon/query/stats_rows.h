// The last steps of GetStats, shared by one session's statistics and the
// fleet's: shares, means, order and `top`.
#ifndef OPTRACE_DAEMON_QUERY_STATS_ROWS_H_
#define OPTRACE_DAEMON_QUERY_STATS_ROWS_H_

#include <cstdint>
#include <vector>

#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Fills `response` from `rows`, whose key, count, ok_count, total_ns,
// self_ns, min_ns, max_ns and percentiles (and, for the fleet, node and
// nodes) are set: each row's mean_ns = total / ok_count, share = total /
// the sum of every row's total and self_share = self / the sum of every
// row's self (sums capped like AddCapped; shares 0 when a sum is 0); rows
// by total (or by self under STATS_SORT_SELF, then by total), largest
// first, ties by key then node; only the first `top` (0 = all).
// response->total_ns and self_ns are those sums and response->spans
// `spans`, all over every row, before `top`. Thread rules: pure.
void FinishStatsResponse(std::vector<v1::OpStats> rows, uint32_t top, v1::StatsSort sort,
                         uint64_t spans, v1::GetStatsResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STATS_ROWS_H_
