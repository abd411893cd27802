// AggregateStats: GetStats answered from a session's op_aggregates rows
// instead of a pass over its spans.
#ifndef OPTRACE_DAEMON_QUERY_AGGREGATE_STATS_H_
#define OPTRACE_DAEMON_QUERY_AGGREGATE_STATS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "optrace/v1/optrace.pb.h"
#include "query/span_filter.h"
#include "query/stats_groups.h"
#include "storage/op_aggregate.h"

namespace optrace::daemon {

// What the aggregates say about the groups that pass a filter.
struct AggregateStats {
  std::vector<StatsGroups::Row> rows;  // in no particular order
  uint64_t spans = 0;                  // spans of every status in those rows
  uint64_t percentile_spans = 0;       // OK durations their sketches cover
  uint64_t groups_folded = 0;          // groups in the `other` row, when it is included
};

// Whether the aggregates `rows` of a session can answer `request` exactly
// (counts and totals; percentiles within the sketch's error): not when it
// asks for `exact`, filters on status, start time or minimum duration (the
// rows know none of these), or filters on name, tag, target or device once
// groups were folded into the `other` row (their keys are gone).
bool AggregatesCanAnswer(const v1::GetStatsRequest& request,
                         const std::vector<OpAggregateRow>& rows);

// The groups under `by` (StatsGroupKey) of the `rows` that pass `filter`
// (its key conditions: REQUIRES AggregatesCanAnswer), with their totals
// merged and their percentiles read from their merged sketches, clamped
// to the group's min and max. nullopt when a group has OK spans but its
// sketches none (rows stored before the sketches existed, or a busy
// session's new row whose sketch is not written yet): then only a pass
// over the spans can give percentiles. A sketch that does not parse
// counts as none. Thread rules: `filter` is used on the calling thread.
std::optional<AggregateStats> StatsFromAggregates(const std::vector<OpAggregateRow>& rows,
                                                  SpanFilter& filter, v1::GroupBy by);

// The StatsGroupKey of every session's `other` row under `by`, which the
// caller shows as "(other)".
uint64_t OtherStatsKey(v1::GroupBy by);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_AGGREGATE_STATS_H_
