#include "drain/retry_schedule.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(RetryScheduleTest, Failed_DelayDoublesUpToTheCeiling) {
  RetrySchedule schedule({.first_ns = 100 * kMs, .most_ns = 400 * kMs});
  uint64_t now = 1'000 * kMs;
  EXPECT_TRUE(schedule.Failed("a", now)) << "new";
  // Each delay: not due a nanosecond before it ends, due when it does.
  for (uint64_t delay : {100 * kMs, 200 * kMs, 400 * kMs, 400 * kMs}) {
    if (delay != 100 * kMs) {
      EXPECT_FALSE(schedule.Failed("a", now));
    }
    EXPECT_TRUE(schedule.Due(now + delay - 1).empty()) << delay;
    EXPECT_EQ(schedule.Due(now + delay), std::vector<std::string>{"a"}) << delay;
    now += delay;
  }
}

TEST(RetryScheduleTest, Due_OnlyNamesWhoseDelayPassed_StayUntilRemoved) {
  RetrySchedule schedule({.first_ns = 100 * kMs, .most_ns = 3200 * kMs});
  schedule.Failed("early", 0);
  schedule.Failed("late", 50 * kMs);
  EXPECT_EQ(schedule.Due(100 * kMs), std::vector<std::string>{"early"});
  EXPECT_EQ(schedule.Due(150 * kMs), (std::vector<std::string>{"early", "late"}));
  schedule.Remove("early");
  EXPECT_FALSE(schedule.Contains("early"));
  EXPECT_EQ(schedule.Due(150 * kMs), std::vector<std::string>{"late"});
  EXPECT_TRUE(schedule.Failed("early", 150 * kMs)) << "removed: starts again at the first delay";
  EXPECT_EQ(schedule.Due(250 * kMs), (std::vector<std::string>{"early", "late"}));
}

TEST(RetryScheduleTest, RemoveIf_RemovesThoseNames) {
  RetrySchedule schedule({});
  for (const char* name : {"a", "b", "c"}) schedule.Failed(name, 0);
  schedule.RemoveIf([](const std::string& name) { return name != "b"; });
  EXPECT_EQ(schedule.size(), 1u);
  EXPECT_TRUE(schedule.Contains("b"));
}

}  // namespace
}  // namespace optrace::daemon
