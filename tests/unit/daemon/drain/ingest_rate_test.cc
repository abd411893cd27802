// The ingest rate over the last few heartbeat samples.
#include "drain/ingest_rate.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

TEST(IngestRateTest, EventsPerSecond_FewerThanTwoSamples_Zero) {
  IngestRate rate;
  EXPECT_EQ(rate.EventsPerSecond(), 0);
  rate.Sample(5 * kSecond, 1000);
  EXPECT_EQ(rate.EventsPerSecond(), 0);
}

TEST(IngestRateTest, EventsPerSecond_TwoSamples_EventsBetweenThemOverTheirDistance) {
  IngestRate rate;
  rate.Sample(10 * kSecond, 500);
  rate.Sample(12 * kSecond, 4500);
  EXPECT_DOUBLE_EQ(rate.EventsPerSecond(), 2000.0);
}

TEST(IngestRateTest, EventsPerSecond_MoreSamplesThanKept_OldestLeaveTheWindow) {
  IngestRate rate;
  rate.Sample(0, 0);
  rate.Sample(kSecond, 1'000'000);  // a burst in the first second
  for (uint64_t s = 2; s <= IngestRate::kSamples; ++s) {
    rate.Sample(s * kSecond, 1'000'000 + 10 * (s - 1));
  }
  // The window is now seconds 1..kSamples: 10 events a second, the burst
  // before it gone.
  EXPECT_DOUBLE_EQ(rate.EventsPerSecond(), 10.0);
}

}  // namespace
}  // namespace optrace::daemon
