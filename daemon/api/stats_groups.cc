#include "api/stats_groups.h"

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
