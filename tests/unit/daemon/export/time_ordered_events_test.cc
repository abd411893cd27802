// TimeOrderedEvents against a plain sorted list: random pushes and takes,
// the earliest key first every time, each event once.
#include "export/time_ordered_events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace optrace::daemon {
namespace {

TEST(TimeOrderedEventsTest, RandomPushesAndTakes_EarliestFirstEachOnce) {
  std::mt19937_64 rng(27);
  TimeOrderedEvents queue;
  std::vector<TimedEvent> held;  // the reference
  uint64_t payload = 0;
  for (int round = 0; round < 20'000; ++round) {
    for (int pushes = static_cast<int>(rng() % 4); pushes > 0; --pushes) {
      // Few distinct keys now and then, so that ties happen.
      const uint64_t key = rng() % 8 == 0 ? rng() % 4 : rng() % 1'000'000;
      queue.Push({.key = key, .payload = ++payload});
      held.push_back({.key = key, .payload = payload});
    }
    for (int takes = static_cast<int>(rng() % 4); takes > 0 && !held.empty(); --takes) {
      ASSERT_FALSE(queue.empty());
      ASSERT_EQ(queue.size(), held.size());
      const auto earliest =
          std::min_element(held.begin(), held.end(),
                           [](const TimedEvent& a, const TimedEvent& b) { return a.key < b.key; });
      const TimedEvent taken = queue.earliest();
      ASSERT_EQ(taken.key, earliest->key) << "round " << round;
      const auto same = std::find_if(held.begin(), held.end(), [&](const TimedEvent& e) {
        return e.key == taken.key && e.payload == taken.payload;
      });
      ASSERT_NE(same, held.end()) << "an event pushed, and only once";
      held.erase(same);
      queue.PopEarliest();
    }
  }
  EXPECT_EQ(queue.size(), held.size());
}

}  // namespace
}  // namespace optrace::daemon
