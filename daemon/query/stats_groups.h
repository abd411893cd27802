// StatsGroups: GetStats's pass over a session: per group, the span count
// and the OK durations its figures are computed from.
#ifndef OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_
#define OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/flat_id_map.h"
#include "model/span.h"
#include "query/duration_percentiles.h"
#include "storage/op_aggregate.h"
#include "storage/span_page_codec.h"

namespace optrace::daemon {

// Groups spans by a 64-bit key (a StringId, or a packed target and device)
// that the caller resolves to text only for the final rows. The per-span
// work is a hash lookup, the totals' update and, for OK spans, one push of
// the duration, from which the percentiles are computed at the end.
// Durations are capped at kMaxAggregateNs, as the stored op_aggregates cap
// them, so that GetStats and CompareSessions agree. Memory: 8 bytes per OK span added (the
// percentiles need every duration). Thread rules: a value type, one thread at a time.
class StatsGroups {
 public:
  // One group's figures.
  struct Row {
    uint64_t key = 0;
    OpAggregate totals;  // count, ok_count, total and self (capped), min, max
    DurationPercentiles percentiles;
  };

  // Makes room for `ok_spans` more durations in group `key` than reserved
  // before (e.g. one aggregate row's), so that Add need not reallocate: an
  // optimisation only, any number may be added. REQUIRES: key != FlatIdMap's kNoId.
  void Reserve(uint64_t key, uint64_t ok_spans);

  // The span columns Add reads.
  static constexpr span_page::ColumnSet kColumns =
      span_page::kStatus | span_page::kDurationNs | span_page::kChildrenNs;

  // Counts `span` in group `key`. REQUIRES: key != FlatIdMap's kNoId.
  void Add(uint64_t key, const Span& span) {
    Group& group = GroupOf(key);
    group.totals.Add(span);
    if (span.status == SpanStatus::kOk) {
      group.durations.push_back(std::min(span.duration_ns, kMaxAggregateNs));
    }
  }

  // Adds every group of `other` (its counts and durations) to this one's:
  // as if this had been given `other`'s spans too.
  void Merge(StatsGroups&& other);

  // The rows of the groups that have at least one span, in no particular
  // order; releases the durations. With `threads` > 1, the percentiles of
  // different groups are computed on that many threads (the calling one
  // and threads - 1 more), the groups dealt out by their sizes.
  std::vector<Row> TakeRows(size_t threads = 1);

 private:
  struct Group {
    uint64_t key = 0;
    OpAggregate totals;
    std::vector<uint64_t> durations;  // of the OK spans
  };

  Group& GroupOf(uint64_t key) {
    if (const uint32_t* index = index_.Find(key)) return groups_[*index];
    return NewGroup(key);
  }
  Group& NewGroup(uint64_t key);

  FlatIdMap<uint32_t> index_;  // key -> index in groups_
  std::vector<Group> groups_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_
