#include "query/aggregate_stats.h"

#include <unordered_map>

#include "model/duration_sketch.h"
#include "query/duration_percentiles.h"
#include "query/stats_pass.h"

namespace optrace::daemon {
namespace {

// One group's rows merged.
struct MergedGroup {
  OpAggregate totals;
  DurationSketch sketch;
};

}  // namespace

bool AggregatesCanAnswer(const v1::GetStatsRequest& request,
                         const std::vector<OpAggregateRow>& rows) {
  const v1::OpFilter& f = request.filter();
  if (request.exact() || f.status() != v1::SPAN_STATUS_UNSPECIFIED || f.start_min_unix_ns() != 0 ||
      f.start_max_unix_ns() != 0 || f.min_duration_ns() != 0) {
    return false;
  }
  const bool by_key = !f.name_pattern().empty() || !f.tag_pattern().empty() ||
                      f.target() != v1::TARGET_UNSPECIFIED || f.has_device();
  return !by_key || std::none_of(rows.begin(), rows.end(),
                                 [](const OpAggregateRow& row) { return IsOtherGroup(row.key); });
}

std::optional<AggregateStats> StatsFromAggregates(const std::vector<OpAggregateRow>& rows,
                                                  SpanFilter& filter, v1::GroupBy by) {
  AggregateStats stats;
  std::unordered_map<uint64_t, MergedGroup> groups;
  for (const OpAggregateRow& row : rows) {
    const OpAggregateKey& k = row.key;
    Span key_fields;  // what Matches reads of a span under a key-only filter
    key_fields.name = k.name;
    key_fields.tag = k.tag;
    key_fields.target = k.target;
    key_fields.device = k.device;
    if (!filter.Matches(key_fields)) continue;
    MergedGroup& group = groups[StatsGroupKey(by, k.name, k.tag, k.target, k.device)];
    group.totals.Merge(row.totals);
    if (!row.sketch.empty()) {
      Result<DurationSketch> sketch = DurationSketch::Parse(row.sketch);
      if (sketch.ok()) group.sketch.Merge(sketch.value());
    }
    stats.spans += row.totals.count;
    stats.groups_folded += row.groups_folded;
  }
  stats.rows.reserve(groups.size());
  for (auto& [key, group] : groups) {
    if (group.totals.ok_count > 0 && group.sketch.Count() == 0) return std::nullopt;
    stats.percentile_spans += group.sketch.Count();
    StatsGroups::Row& out = stats.rows.emplace_back();
    out.key = key;
    out.totals = group.totals;
    out.percentiles = SketchPercentiles(group.sketch, group.totals.min_ns, group.totals.max_ns);
  }
  return stats;
}

uint64_t OtherStatsKey(v1::GroupBy by) {
  return StatsGroupKey(by, kOtherGroupString, kOtherGroupString, kOtherGroupTarget,
                       kOtherGroupDevice);
}

}  // namespace optrace::daemon
