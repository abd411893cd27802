#include "human_format.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(FormatDurationTest, Nanoseconds_Whole) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(5), "5 ns");
  EXPECT_EQ(FormatDuration(950), "950 ns");
  EXPECT_EQ(FormatDuration(999), "999 ns");
}

TEST(FormatDurationTest, LargerUnits_ThreeSignificantDigits) {
  EXPECT_EQ(FormatDuration(1'000), "1.00 µs");
  EXPECT_EQ(FormatDuration(1'234), "1.23 µs");
  EXPECT_EQ(FormatDuration(12'345), "12.3 µs");
  EXPECT_EQ(FormatDuration(123'456), "123 µs");
  EXPECT_EQ(FormatDuration(1'234'567), "1.23 ms");
  EXPECT_EQ(FormatDuration(12'300'000'000), "12.3 s");
  EXPECT_EQ(FormatDuration(999'000'000'000), "999 s");
}

TEST(FormatDurationTest, RoundingAcrossAUnit_MovesToTheNextUnit) {
  EXPECT_EQ(FormatDuration(999'700), "1.00 ms");  // 999.7 µs
  EXPECT_EQ(FormatDuration(99'960), "100 µs");    // not "100.0 µs"
  EXPECT_EQ(FormatDuration(9'999), "10.0 µs");    // not "10.00 µs"
  EXPECT_EQ(FormatDuration(999'999'999), "1.00 s");
}

TEST(FormatDurationTest, BeyondAThousandSeconds_WholeSeconds) {
  EXPECT_EQ(FormatDuration(4'521'300'000'000), "4521 s");
}

TEST(FormatDurationTest, Compact_NoSpace) {
  EXPECT_EQ(FormatDuration(1'234'567, UnitSpacing::kCompact), "1.23ms");
  EXPECT_EQ(FormatDuration(950, UnitSpacing::kCompact), "950ns");
}

TEST(FormatDurationChangeTest, Sign_AlwaysShownExceptZero) {
  EXPECT_EQ(FormatDurationChange(1'234'567), "+1.23 ms");
  EXPECT_EQ(FormatDurationChange(-950), "-950 ns");
  EXPECT_EQ(FormatDurationChange(0), "0 ns");
  EXPECT_EQ(FormatDurationChange(INT64_MIN), "-9223372037 s");
}

TEST(MagnitudeTest, Int64Min_Exact) {
  EXPECT_EQ(Magnitude(INT64_MIN), 9223372036854775808ull);
  EXPECT_EQ(Magnitude(-5), 5u);
  EXPECT_EQ(Magnitude(7), 7u);
}

TEST(ParseDurationTest, Units_Accepted) {
  EXPECT_EQ(ParseDuration("100ns"), 100u);
  EXPECT_EQ(ParseDuration("500us"), 500'000u);
  EXPECT_EQ(ParseDuration("500µs"), 500'000u);
  EXPECT_EQ(ParseDuration("1ms"), 1'000'000u);
  EXPECT_EQ(ParseDuration("2.5s"), 2'500'000'000u);
  EXPECT_EQ(ParseDuration("2.5 s"), 2'500'000'000u);
  EXPECT_EQ(ParseDuration("1m"), 60'000'000'000u);
  EXPECT_EQ(ParseDuration("1h"), 3'600'000'000'000u);
  EXPECT_EQ(ParseDuration("0"), 0u);
}

TEST(ParseDurationTest, Malformed_Rejected) {
  EXPECT_EQ(ParseDuration(""), std::nullopt);
  EXPECT_EQ(ParseDuration("5"), std::nullopt);  // 5 what?
  EXPECT_EQ(ParseDuration("ms"), std::nullopt);
  EXPECT_EQ(ParseDuration("-1ms"), std::nullopt);
  EXPECT_EQ(ParseDuration("1.2.3ms"), std::nullopt);
  EXPECT_EQ(ParseDuration("1 fortnight"), std::nullopt);
  EXPECT_EQ(ParseDuration("99999999999h"), std::nullopt);  // beyond uint64 ns
}

TEST(FormatBytesTest, BinaryUnits_ThreeSignificantDigits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1023), "1.00 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(12'900'000), "12.3 MiB");
}

TEST(FormatWallTimeTest, Zero_Dash) { EXPECT_EQ(FormatWallTime(0), "-"); }

TEST(FormatWallTimeTest, Time_DateAndSeconds) {
  // 2024-05-01 12:00:00 UTC; the local zone moves the hour, not the shape.
  const std::string text = FormatWallTime(1714564800LL * 1'000'000'000);
  EXPECT_EQ(text.size(), 19u) << text;
  EXPECT_EQ(text.substr(0, 8), "2024-05-") << text;
}

TEST(FormatRatioTest, Decimals_ByMagnitude) {
  EXPECT_EQ(FormatRatio(1.234), "1.23x");
  EXPECT_EQ(FormatRatio(0.5), "0.500x");
  EXPECT_EQ(FormatRatio(12.0), "12.0x");
  EXPECT_EQ(FormatRatio(250.0), "250x");
}

TEST(FormatShareTest, Fraction_Percent) {
  EXPECT_EQ(FormatShare(0.123), "12.3%");
  EXPECT_EQ(FormatShare(1.0), "100.0%");
}

}  // namespace
}  // namespace optrace::cli
