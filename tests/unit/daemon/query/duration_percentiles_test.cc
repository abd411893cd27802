// Nearest-rank percentiles: ranks by the definition, small sets, ties.
#include "query/duration_percentiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace optrace::daemon {
namespace {

TEST(DurationPercentilesTest, NearestRankIndex_OneToHundred_IsPercentMinusOne) {
  for (uint32_t percent : {1u, 50u, 95u, 99u, 100u}) {
    EXPECT_EQ(NearestRankIndex(100, percent), percent - 1);
  }
}

TEST(DurationPercentilesTest, NearestRankIndex_SmallCounts_RoundsTheRankUp) {
  EXPECT_EQ(NearestRankIndex(1, 50), 0u);
  EXPECT_EQ(NearestRankIndex(1, 99), 0u);
  EXPECT_EQ(NearestRankIndex(2, 50), 0u);    // ceil(1.0) - 1
  EXPECT_EQ(NearestRankIndex(3, 50), 1u);    // ceil(1.5) - 1
  EXPECT_EQ(NearestRankIndex(20, 95), 18u);  // ceil(19.0) - 1
  EXPECT_EQ(NearestRankIndex(21, 95), 19u);  // ceil(19.95) - 1
  EXPECT_EQ(NearestRankIndex(37, 99), 36u);  // ceil(36.63) - 1
}

TEST(DurationPercentilesTest, ComputePercentiles_OneToHundredShuffled_ExactValues) {
  std::vector<uint64_t> values(100);
  std::iota(values.begin(), values.end(), 1);
  std::shuffle(values.begin(), values.end(), std::mt19937_64(7));
  const DurationPercentiles p = ComputePercentiles(values);
  EXPECT_EQ(p.p50, 50u);
  EXPECT_EQ(p.p95, 95u);
  EXPECT_EQ(p.p99, 99u);
}

TEST(DurationPercentilesTest, ComputePercentiles_Empty_AllZero) {
  std::vector<uint64_t> none;
  const DurationPercentiles p = ComputePercentiles(none);
  EXPECT_EQ(p.p50, 0u);
  EXPECT_EQ(p.p95, 0u);
  EXPECT_EQ(p.p99, 0u);
}

TEST(DurationPercentilesTest, ComputePercentiles_RandomSets_AgreeWithSorting) {
  std::mt19937_64 rng(11);
  // Value shapes: few distinct values (ties; most values alike), a narrow
  // range, log-uniform over the whole 64 bits, bucket edges, one value.
  const std::function<uint64_t()> shapes[] = {
      [&] { return rng() % 50; },
      [&] { return 1000 + rng() % 99'000; },
      [&] { return rng() >> (rng() % 64); },
      // Bucket edges: powers of two and their neighbours.
      [&] { return (uint64_t{1} << (rng() % 64)) + (rng() % 3) - 1; },
      [] { return uint64_t{777}; },
  };
  for (size_t shape = 0; shape < std::size(shapes); ++shape) {
    for (size_t n : {1u, 2u, 3u, 19u, 20u, 21u, 101u, 1000u, 4095u, 4096u, 4097u, 100'003u}) {
      std::vector<uint64_t> values(n);
      for (uint64_t& v : values) v = shapes[shape]();
      std::vector<uint64_t> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      const DurationPercentiles p = ComputePercentiles(values);
      SCOPED_TRACE("shape " + std::to_string(shape) + ", " + std::to_string(n) + " values");
      EXPECT_EQ(p.p50, sorted[NearestRankIndex(n, 50)]);
      EXPECT_EQ(p.p95, sorted[NearestRankIndex(n, 95)]);
      EXPECT_EQ(p.p99, sorted[NearestRankIndex(n, 99)]);
    }
  }
}

TEST(DurationPercentilesTest, ComputePercentiles_ExtremeValues_Exact) {
  std::vector<uint64_t> values(10'000, 0);
  for (size_t i = 9'000; i < values.size(); ++i) values[i] = ~uint64_t{0} - i;
  const DurationPercentiles p = ComputePercentiles(values);
  EXPECT_EQ(p.p50, 0u);
  EXPECT_EQ(p.p95, ~uint64_t{0} - 9'500);  // sorted[9499]
  EXPECT_EQ(p.p99, ~uint64_t{0} - 9'100);  // sorted[9899]
}

}  // namespace
}  // namespace optrace::daemon
