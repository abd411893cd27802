#include "optrace/reader/clock_converter.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace optrace::reader {
namespace {

// A wall-clock anchor of late 2026 that is not a multiple of 256: a double
// holds times of this size only in steps of 256 ns.
constexpr uint64_t kRealtimeAnchor = 1'796'000'000'123'456'789ULL;
constexpr uint64_t kMonotonicAnchor = 987'654'321'987ULL;

SegmentGeometry Geometry(abi::ClockId clock, uint64_t ticks_per_sec, uint64_t created_ts) {
  SegmentGeometry g;
  g.clock_id = clock;
  g.clock_ticks_per_sec = ticks_per_sec;
  g.created_ts = created_ts;
  g.created_monotonic_ns = kMonotonicAnchor;
  g.created_realtime_ns = kRealtimeAnchor;
  return g;
}

TEST(ClockConverterTest, Issue16_MonotonicNs_EveryNanosecondExact) {
  const ClockConverter clock(Geometry(abi::ClockId::kMonotonicNs, 1'000'000'000, 5'000));
  for (uint64_t step = 0; step < 1000; ++step) {
    EXPECT_EQ(clock.ToRealtimeNs(5'000 + step), kRealtimeAnchor + step) << step;
    EXPECT_EQ(clock.ToMonotonicNs(5'000 + step), kMonotonicAnchor + step) << step;
  }
  EXPECT_EQ(clock.ToRealtimeNs(4'900), kRealtimeAnchor - 100);
}

TEST(ClockConverterTest, Issue16_TwoEvents100nsApart_KeepTheirOrderAndGap) {
  const ClockConverter clock(Geometry(abi::ClockId::kMonotonicNs, 1'000'000'000, 0));
  const uint64_t a = clock.ToRealtimeNs(7'777'777'777);
  const uint64_t b = clock.ToRealtimeNs(7'777'777'877);
  EXPECT_EQ(b - a, 100u);
}

TEST(ClockConverterTest, DeclaredTickRate_ConvertsExactlyOverHours) {
  // 3 GHz: 3 ticks a nanosecond; an hour is 1.08e13 ticks.
  const uint64_t created = 1'000'000;
  const ClockConverter clock(Geometry(abi::ClockId::kTsc, 3'000'000'000, created));
  EXPECT_EQ(clock.ToRealtimeNs(created), kRealtimeAnchor);
  EXPECT_EQ(clock.ToRealtimeNs(created + 3), kRealtimeAnchor + 1);
  EXPECT_EQ(clock.ToRealtimeNs(created + 4), kRealtimeAnchor + 1);  // 1.33 ns rounds down
  EXPECT_EQ(clock.ToRealtimeNs(created + 5), kRealtimeAnchor + 2);  // 1.67 ns rounds up
  const uint64_t hour_ticks = 3'000'000'000ULL * 3600;
  EXPECT_EQ(clock.ToRealtimeNs(created + hour_ticks + 3), kRealtimeAnchor + 3'600'000'000'001ULL);
  EXPECT_EQ(clock.ToRealtimeNs(created - 30), kRealtimeAnchor - 10);
  EXPECT_EQ(clock.DurationNs(created, created + hour_ticks), 3'600'000'000'000ULL);
}

TEST(ClockConverterTest, CalibratedTsc_AnchorItselfIsExact) {
  const ClockConverter clock(Geometry(abi::ClockId::kTsc, 0, 42));
  EXPECT_EQ(clock.ToRealtimeNs(42), kRealtimeAnchor);
  EXPECT_EQ(clock.ToMonotonicNs(42), kMonotonicAnchor);
}

TEST(ClockConverterTest, Malicious_TimesLongBeforeCreation_ClampedAtZero) {
  const ClockConverter clock(Geometry(abi::ClockId::kMonotonicNs, 1'000'000'000, ~0ULL >> 1));
  EXPECT_EQ(clock.ToMonotonicNs(0), 0u);
  const ClockConverter slow(Geometry(abi::ClockId::kTsc, 1, 1ULL << 62));
  EXPECT_EQ(slow.ToRealtimeNs(0), 0u);
  EXPECT_EQ(slow.DurationNs(0, 1ULL << 62), static_cast<uint64_t>(INT64_MAX));
}

TEST(ClockConverterTest, DurationNs_EndBeforeBegin_IsZero) {
  const ClockConverter clock(Geometry(abi::ClockId::kMonotonicNs, 1'000'000'000, 0));
  EXPECT_EQ(clock.DurationNs(200, 100), 0u);
  EXPECT_EQ(clock.DurationNs(100, 100), 0u);
  EXPECT_EQ(clock.DurationNs(100, 101), 1u);
}

}  // namespace
}  // namespace optrace::reader
