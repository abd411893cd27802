#include "api/stats_groups.h"

#include "api/duration_math.h"

namespace optrace::daemon {

StatsGroups::Group& StatsGroups::NewGroup(uint64_t key) {
  index_.Insert(key, static_cast<uint32_t>(groups_.size()));
  Group& group = groups_.emplace_back();
  group.key = key;
  return group;
}

void StatsGroups::Reserve(uint64_t key, uint64_t ok_spans) {
  // On top of earlier reservations: several aggregate rows (tag, target,
  // device) fall in one group.
  std::vector<uint64_t>& durations = GroupOf(key).durations;
  durations.reserve(durations.capacity() + ok_spans);
}

void StatsGroups::Merge(StatsGroups&& other) {
  for (Group& from : other.groups_) {
    if (from.totals.count == 0) continue;  // reserved, never seen
    Group& to = GroupOf(from.key);
    OpAggregate& t = to.totals;
    const OpAggregate& f = from.totals;
    if (f.ok_count > 0) {
      t.min_ns = t.ok_count == 0 ? f.min_ns : std::min(t.min_ns, f.min_ns);
      t.max_ns = std::max(t.max_ns, f.max_ns);
    }
    t.count += f.count;
    t.ok_count += f.ok_count;
    t.total_ns = AddCapped(t.total_ns, f.total_ns);
    to.durations.insert(to.durations.end(), from.durations.begin(), from.durations.end());
    std::vector<uint64_t>().swap(from.durations);
  }
  other.groups_.clear();
  other.index_ = {};
}

std::vector<StatsGroups::Row> StatsGroups::TakeRows() {
  std::vector<Row> rows;
  rows.reserve(groups_.size());
  for (Group& group : groups_) {
    if (group.totals.count == 0) continue;  // reserved, never seen
    rows.push_back({group.key, group.totals, ComputePercentiles(group.durations)});
    std::vector<uint64_t>().swap(group.durations);
  }
  groups_.clear();
  index_ = {};
  return rows;
}

}  // namespace optrace::daemon
