#include "query/stats_groups.h"

#include <algorithm>
#include <functional>
#include <system_error>
#include <thread>

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
    to.totals.Merge(from.totals);
    to.durations.insert(to.durations.end(), from.durations.begin(), from.durations.end());
    std::vector<uint64_t>().swap(from.durations);
  }
  other.groups_.clear();
  other.index_ = {};
}

std::vector<StatsGroups::Row> StatsGroups::TakeRows(size_t threads) {
  std::vector<Group*> seen;
  for (Group& group : groups_) {
    if (group.totals.count > 0) seen.push_back(&group);  // else reserved, never seen
  }
  // Largest first, each to the least loaded thread.
  std::sort(seen.begin(), seen.end(), [](const Group* a, const Group* b) {
    return a->durations.size() > b->durations.size();
  });
  threads = std::clamp<size_t>(threads, 1, std::max<size_t>(1, seen.size()));
  std::vector<std::vector<size_t>> shares(threads);  // indices into seen
  std::vector<uint64_t> load(threads, 0);
  for (size_t i = 0; i < seen.size(); ++i) {
    const size_t least =
        static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shares[least].push_back(i);
    load[least] += seen[i]->durations.size() + 1;
  }
  std::vector<Row> rows(seen.size());
  auto compute = [&](const std::vector<size_t>& share) {
    for (const size_t i : share) {
      Group& group = *seen[i];
      rows[i] = {group.key, group.totals, ComputePercentiles(group.durations)};
      std::vector<uint64_t>().swap(group.durations);
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(compute, std::cref(shares[t]));
    } catch (const std::system_error&) {
      compute(shares[t]);  // no thread to be had: here, after all
    }
  }
  compute(shares[0]);
  for (std::thread& helper : helpers) helper.join();
  groups_.clear();
  index_ = {};
  return rows;
}

}  // namespace optrace::daemon
