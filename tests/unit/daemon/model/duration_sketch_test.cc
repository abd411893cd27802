// DurationSketch: quantiles within the stated error against exact
// nearest-rank percentiles, merging, 0 ns, huge values, the byte format
// and hostile bytes.
#include "model/duration_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace optrace::daemon {
namespace {

constexpr double kQuantiles[] = {0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0};

// The nearest-rank q-quantile of `sorted`, as DurationSketch defines it.
uint64_t ExactQuantile(const std::vector<uint64_t>& sorted, double q) {
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  const size_t index = rank <= 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

// Every quantile of `sketch` is within the stated error of `values`'.
void ExpectWithinError(const DurationSketch& sketch, std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  ASSERT_EQ(sketch.Count(), values.size());
  for (const double q : kQuantiles) {
    const double exact = static_cast<double>(ExactQuantile(values, q));
    const double read = static_cast<double>(sketch.Quantile(q));
    EXPECT_LE(std::abs(read - exact), exact * DurationSketch::kRelativeError)
        << "q " << q << ": exact " << exact << ", sketch " << read;
  }
}

DurationSketch SketchOf(const std::vector<uint64_t>& values) {
  DurationSketch sketch;
  for (const uint64_t v : values) sketch.Add(v);
  return sketch;
}

TEST(DurationSketchTest, Empty_CountZeroQuantileZero) {
  DurationSketch sketch;
  EXPECT_EQ(sketch.Count(), 0u);
  EXPECT_EQ(sketch.Quantile(0.5), 0u);
  EXPECT_EQ(sketch.Serialize().size(), 4u);
}

TEST(DurationSketchTest, Buckets_EveryValueWithinErrorOfItsBucket) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200'000; ++i) {
    const uint64_t v = 1 + (rng() >> (rng() % 64));
    const uint32_t index = DurationSketch::BucketOf(v);
    ASSERT_GT(index, 0u);
    ASSERT_LT(index, DurationSketch::kBucketCount);
    const double read = static_cast<double>(DurationSketch::ValueOf(index));
    ASSERT_LE(std::abs(read - static_cast<double>(v)),
              static_cast<double>(v) * DurationSketch::kRelativeError)
        << v;
  }
  EXPECT_EQ(DurationSketch::BucketOf(std::numeric_limits<uint64_t>::max()),
            DurationSketch::kBucketCount - 1);
  EXPECT_EQ(DurationSketch::ValueOf(DurationSketch::BucketOf(127)), 127u);
}

TEST(DurationSketchTest, Uniform_QuantilesWithinError) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<uint64_t> d(1'000, 5'000'000);
  std::vector<uint64_t> values(100'000);
  for (uint64_t& v : values) v = d(rng);
  ExpectWithinError(SketchOf(values), values);
}

TEST(DurationSketchTest, LogNormal_QuantilesWithinError) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> d(10.0, 2.0);
  std::vector<uint64_t> values(100'000);
  for (uint64_t& v : values) v = static_cast<uint64_t>(d(rng));
  ExpectWithinError(SketchOf(values), values);
}

TEST(DurationSketchTest, Bimodal_QuantilesWithinError) {
  // Fast cache hits and slow misses, as an op with two paths has.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> fast(2'000, 100), slow(3'000'000, 200'000);
  std::vector<uint64_t> values(50'000);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<uint64_t>(std::max(1.0, i % 10 == 0 ? slow(rng) : fast(rng)));
  }
  ExpectWithinError(SketchOf(values), values);
}

TEST(DurationSketchTest, SmallValues_Exact) {
  std::vector<uint64_t> values;
  for (uint64_t v = 0; v < 128; ++v) values.push_back(v);
  const DurationSketch sketch = SketchOf(values);
  for (const double q : kQuantiles) EXPECT_EQ(sketch.Quantile(q), ExactQuantile(values, q));
}

TEST(DurationSketchTest, ZeroNs_CountedInItsOwnBucket) {
  DurationSketch sketch;
  for (int i = 0; i < 60; ++i) sketch.Add(0);
  for (int i = 0; i < 40; ++i) sketch.Add(1'000'000);
  EXPECT_EQ(sketch.Count(), 100u);
  EXPECT_EQ(sketch.Quantile(0.5), 0u);
  EXPECT_EQ(sketch.Quantile(0.6), 0u);
  EXPECT_NEAR(static_cast<double>(sketch.Quantile(0.61)), 1e6,
              1e6 * DurationSketch::kRelativeError);
}

TEST(DurationSketchTest, HugeValues_WithinErrorAndRoundTrip) {
  const std::vector<uint64_t> values = {std::numeric_limits<uint64_t>::max(), uint64_t{1} << 63,
                                        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                                        uint64_t{1} << 40};
  const DurationSketch sketch = SketchOf(values);
  ExpectWithinError(sketch, values);
  Result<DurationSketch> parsed = DurationSketch::Parse(sketch.Serialize());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value(), sketch);
}

TEST(DurationSketchTest, Merge_EqualsAddingAll) {
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> d(9.0, 1.5);
  DurationSketch all, a, b, c;
  for (int i = 0; i < 30'000; ++i) {
    const uint64_t v = i % 97 == 0 ? 0 : static_cast<uint64_t>(d(rng));
    all.Add(v);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).Add(v);
  }
  DurationSketch merged;
  merged.Merge(c);
  merged.Merge(a);
  merged.Merge(b);
  EXPECT_EQ(merged, all);
  merged.Merge(DurationSketch());
  EXPECT_EQ(merged, all);
}

TEST(DurationSketchTest, WideRange_CollapsesLowestBucketsWithinBound) {
  DurationSketch sketch;
  std::vector<uint64_t> values;
  for (int e = 0; e < 64; ++e) {
    for (int i = 0; i < 10; ++i) values.push_back((uint64_t{1} << e) + static_cast<uint64_t>(i));
  }
  for (const uint64_t v : values) sketch.Add(v);
  EXPECT_EQ(sketch.Count(), values.size());
  const std::string bytes = sketch.Serialize();
  Result<DurationSketch> parsed = DurationSketch::Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value(), sketch);
  // The upper quantiles keep their error bound; the collapsed ones do not.
  std::sort(values.begin(), values.end());
  for (const double q : {0.9, 0.99, 1.0}) {
    const double exact = static_cast<double>(ExactQuantile(values, q));
    EXPECT_LE(std::abs(static_cast<double>(sketch.Quantile(q)) - exact),
              exact * DurationSketch::kRelativeError);
  }
  // A merge of collapsed sketches stays within the bound too.
  DurationSketch merged = sketch;
  merged.Merge(sketch);
  EXPECT_EQ(merged.Count(), 2 * values.size());
  EXPECT_TRUE(DurationSketch::Parse(merged.Serialize()).ok());
}

TEST(DurationSketchTest, Serialize_RoundTripsAndIsCompact) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> d(50'000, 2'000);
  DurationSketch sketch;
  for (int i = 0; i < 100'000; ++i) sketch.Add(static_cast<uint64_t>(std::max(0.0, d(rng))));
  sketch.Add(0);
  const std::string bytes = sketch.Serialize();
  EXPECT_LT(bytes.size(), 200u);
  Result<DurationSketch> parsed = DurationSketch::Parse(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value(), sketch);
}

// Parse's error for `bytes`, which must fail.
std::string ParseError(const std::string& bytes) {
  Result<DurationSketch> parsed = DurationSketch::Parse(bytes);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? std::string() : parsed.status().message();
}

TEST(DurationSketchTest, Malicious_BadBytes_ClearErrors) {
  EXPECT_NE(ParseError("").find("no bytes"), std::string::npos);
  EXPECT_NE(ParseError(std::string("\x02\x00\x00\x00", 4)).find("version 2"), std::string::npos);
  EXPECT_NE(ParseError(std::string("\x01\x00\x05", 3)).find("truncated"), std::string::npos);
  EXPECT_NE(ParseError(std::string("\x01") + std::string(11, '\xff')).find("overlong"),
            std::string::npos);
  // 4096 buckets: over kMaxBuckets.
  EXPECT_NE(ParseError(std::string("\x01\x00\x01\x80\x20", 5)).find("at most"), std::string::npos);
  // Buckets that run past the last index.
  EXPECT_NE(ParseError(std::string("\x01\x00\xcf\x1d\x02\x01\x01", 7)).find("outside"),
            std::string::npos);
  // Bucket 0 is not a bucket (0 ns has its own count).
  EXPECT_NE(ParseError(std::string("\x01\x00\x00\x01\x01", 5)).find("outside"), std::string::npos);
  // A run that ends with an empty bucket.
  EXPECT_NE(ParseError(std::string("\x01\x00\x05\x02\x01\x00", 6)).find("empty"),
            std::string::npos);
  EXPECT_NE(ParseError(std::string("\x01\x00\x00\x00\x07", 5)).find("after the last"),
            std::string::npos);
  // Counts whose sum overflows.
  const std::string max_varint = std::string(9, '\xff') + '\x01';
  EXPECT_NE(ParseError("\x01" + max_varint + std::string("\x05\x01", 2) + max_varint)
                .find("more than 2^64"),
            std::string::npos);
}

}  // namespace
}  // namespace optrace::daemon
