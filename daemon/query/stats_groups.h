// StatsGroups: GetStats's pass over a session: per group, the span count
// and the OK durations its figures are computed from.
#ifndef OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_
#define OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/duration_sketch.h"
#include "model/flat_id_map.h"
#include "model/span.h"
#include "query/duration_percentiles.h"
#include "storage/op_aggregate.h"
#include "storage/span_page_codec.h"

namespace optrace::daemon {

// What one StatsGroups may hold (see there).
struct StatsGroupLimits {
  size_t max_groups = SIZE_MAX;
  uint64_t max_exact_durations = UINT64_MAX;
};

// Groups spans by a 64-bit key (a StringId, or a packed target and device)
// that the caller resolves to text only for the final rows. The per-span
// work is a hash lookup, the totals' update and, for OK spans, one push of
// the duration, from which the percentiles are computed at the end.
// Durations are capped at kMaxAggregateNs, as the stored op_aggregates cap
// them, so that GetStats and CompareSessions agree. Memory is bounded by
// Limits: 8 bytes per OK span added until max_exact_durations, then every
// group's durations move into a DurationSketch (at most 16 KiB each;
// percentiles within DurationSketch::kRelativeError); and at most
// max_groups groups (a span of a group past it is not counted, and
// exhausted() says so). Thread rules: a value type, one thread at a time.
class StatsGroups {
 public:
  using Limits = StatsGroupLimits;

  // One group's figures.
  struct Row {
    uint64_t key = 0;
    OpAggregate totals;  // count, ok_count, total and self (capped), min, max
    DurationPercentiles percentiles;
  };

  explicit StatsGroups(Limits limits = {}) : limits_(limits) {}

  // Makes room for `ok_spans` more durations in group `key` than reserved
  // before (e.g. one aggregate row's), so that Add need not reallocate: an
  // optimisation only, any number may be added. Reserves nothing past
  // max_exact_durations in all, nor for a group past max_groups.
  // REQUIRES: key != FlatIdMap's kNoId.
  void Reserve(uint64_t key, uint64_t ok_spans);

  // The span columns Add reads.
  static constexpr span_page::ColumnSet kColumns =
      span_page::kStatus | span_page::kDurationNs | span_page::kChildrenNs;

  // Counts `span` in group `key`, unless that would be a group past
  // max_groups: then nothing is counted and exhausted() is true from now
  // on. REQUIRES: key != FlatIdMap's kNoId.
  void Add(uint64_t key, const Span& span) {
    Group* group = GroupOf(key);
    if (group == nullptr) return;
    group->totals.Add(span);
    if (span.status == SpanStatus::kOk)
      AddDuration(*group, std::min(span.duration_ns, kMaxAggregateNs));
  }

  // Adds every group of `other` (its counts and durations) to this one's:
  // as if this had been given `other`'s spans too (within this one's
  // limits; exhausted when either was).
  void Merge(StatsGroups&& other);

  // A span of a group past max_groups was not counted: the rows are not
  // the whole answer.
  bool exhausted() const { return exhausted_; }
  // The percentiles come from sketches: more than max_exact_durations
  // durations were added.
  bool sketched() const { return sketched_; }

  // The rows of the groups that have at least one span, in no particular
  // order; releases the durations. With `threads` > 1, the percentiles of
  // different groups are computed on that many threads (the calling one
  // and threads - 1 more), the groups dealt out by their sizes.
  std::vector<Row> TakeRows(size_t threads = 1);

 private:
  struct Group {
    uint64_t key = 0;
    OpAggregate totals;
    std::vector<uint64_t> durations;  // of the OK spans, until sketched_
    DurationSketch sketch;            // of the OK spans, once sketched_
  };

  // The group of `key`, created if needed; null past max_groups.
  Group* GroupOf(uint64_t key) {
    if (const uint32_t* index = index_.Find(key)) return &groups_[*index];
    return NewGroup(key);
  }
  Group* NewGroup(uint64_t key);
  void AddDuration(Group& group, uint64_t ns) {
    if (sketched_) return group.sketch.Add(ns);
    group.durations.push_back(ns);
    if (++exact_durations_ > limits_.max_exact_durations) SwitchToSketches();
  }
  // Moves every group's durations into its sketch, for good.
  void SwitchToSketches();

  Limits limits_;
  FlatIdMap<uint32_t> index_;  // key -> index in groups_
  std::vector<Group> groups_;
  uint64_t exact_durations_ = 0;  // durations held in groups' vectors
  uint64_t reserved_ = 0;         // durations reserved room for
  bool sketched_ = false;
  bool exhausted_ = false;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STATS_GROUPS_H_
