#include "query/stats_groups.h"

#include <algorithm>
#include <functional>
#include <system_error>
#include <thread>

namespace optrace::daemon {

StatsGroups::Group* StatsGroups::NewGroup(uint64_t key) {
  if (groups_.size() >= limits_.max_groups) {
    exhausted_ = true;
    return nullptr;
  }
  index_.Insert(key, static_cast<uint32_t>(groups_.size()));
  Group& group = groups_.emplace_back();
  group.key = key;
  return &group;
}

void StatsGroups::Reserve(uint64_t key, uint64_t ok_spans) {
  Group* group = GroupOf(key);
  if (group == nullptr || sketched_) return;
  // On top of earlier reservations: several aggregate rows (tag, target,
  // device) fall in one group.
  const uint64_t room = std::min(
      ok_spans, limits_.max_exact_durations - std::min(reserved_, limits_.max_exact_durations));
  group->durations.reserve(group->durations.capacity() + room);
  reserved_ += room;
}

void StatsGroups::SwitchToSketches() {
  for (Group& group : groups_) {
    for (const uint64_t ns : group.durations) group.sketch.Add(ns);
    std::vector<uint64_t>().swap(group.durations);
  }
  exact_durations_ = 0;
  sketched_ = true;
}

void StatsGroups::Merge(StatsGroups&& other) {
  if (other.sketched_ && !sketched_) SwitchToSketches();
  exhausted_ = exhausted_ || other.exhausted_;
  for (Group& from : other.groups_) {
    if (from.totals.count == 0) continue;  // reserved, never seen
    Group* to = GroupOf(from.key);
    if (to == nullptr) continue;
    to->totals.Merge(from.totals);
    if (sketched_) {
      for (const uint64_t ns : from.durations) to->sketch.Add(ns);
      to->sketch.Merge(from.sketch);
    } else {
      exact_durations_ += from.durations.size();
      if (to->durations.empty()) {
        to->durations.swap(from.durations);  // no copy into a group seen first here
      } else {
        to->durations.insert(to->durations.end(), from.durations.begin(), from.durations.end());
      }
    }
    std::vector<uint64_t>().swap(from.durations);
  }
  other.groups_.clear();
  other.index_ = {};
  if (!sketched_ && exact_durations_ > limits_.max_exact_durations) SwitchToSketches();
}

std::vector<StatsGroups::Row> StatsGroups::TakeRows(size_t threads) {
  std::vector<Group*> seen;
  for (Group& group : groups_) {
    if (group.totals.count > 0) seen.push_back(&group);  // else reserved, never seen
  }
  // Largest first, each to the least loaded thread (a sketch is read in
  // about the same time whatever it counted).
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
      rows[i] = {group.key, group.totals,
                 sketched_
                     ? SketchPercentiles(group.sketch, group.totals.min_ns, group.totals.max_ns)
                     : ComputePercentiles(group.durations)};
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
