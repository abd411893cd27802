// CUPTI's clock mapped onto optrace's event clock.
#include "nvtx/cupti/clock_mapping.h"

#include <gtest/gtest.h>

namespace optrace::nvtx {
namespace {

TEST(ClockMappingTest, OneSample_InitialRateAroundIt) {
  const ClockMapping m({1000, 50000}, 2.0);
  EXPECT_EQ(m.ToEventClock(1000), 50000u);
  EXPECT_EQ(m.ToEventClock(1500), 51000u);
  EXPECT_EQ(m.ToEventClock(900), 49800u);
}

TEST(ClockMappingTest, LaterSampleOverOneMillisecondAway_RateMeasuredBetweenThem) {
  ClockMapping m({1000, 50000}, 2.0);
  m.Update({1000 + 2000000, 50000 + 6000000});  // 3 ticks per ns
  EXPECT_DOUBLE_EQ(m.ticks_per_ns(), 3.0);
  EXPECT_EQ(m.ToEventClock(1000 + 2000000 + 10), 50000u + 6000000u + 30u);
}

TEST(ClockMappingTest, LaterSampleTooClose_InitialRateKept) {
  ClockMapping m({1000, 50000}, 2.0);
  m.Update({1000 + 500, 50000 + 5000});
  EXPECT_DOUBLE_EQ(m.ticks_per_ns(), 2.0);
  EXPECT_EQ(m.ToEventClock(1000 + 500), 50000u + 5000u) << "maps through the latest sample";
}

TEST(ClockMappingTest, Malicious_OlderSampleOrTimeBeforeZero_IgnoredAndClamped) {
  ClockMapping m({1000000, 100}, 1.0);
  m.Update({10, 5});
  EXPECT_EQ(m.ToEventClock(1000000), 100u);
  EXPECT_EQ(m.ToEventClock(0), 0u);
}

TEST(ClockMappingTest, LargeEventClock_EveryTickKept) {
  const uint64_t big = (uint64_t{1} << 62) + 1;
  const ClockMapping m({0, big}, 1.0);
  EXPECT_EQ(m.ToEventClock(1), big + 1);
}

uint64_t StoppedClock() { return 5; }

TEST(ClockMappingTest, Malicious_SourceClockStandsStill_CalibrationEndsWithRateOne) {
  const ClockMapping m = CalibrateClockMapping(&StoppedClock);
  EXPECT_DOUBLE_EQ(m.ticks_per_ns(), 1.0);
}

}  // namespace
}  // namespace optrace::nvtx
