#include "query/duration_percentiles.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

namespace optrace::daemon {
namespace {

// Log-linear buckets (as in HDR histograms): values below 2^kMantissaBits
// have a bucket each; above, each power of two is split into
// 2^kMantissaBits buckets, so a bucket spans at most 1/64 of its values.
// Monotonic: a smaller value never lands in a later bucket.
constexpr int kMantissaBits = 6;
constexpr uint64_t kExactBelow = uint64_t{1} << kMantissaBits;
constexpr size_t kBuckets = (64 - kMantissaBits + 1) << kMantissaBits;
// Below this many values a plain selection is as fast as bucketing.
constexpr size_t kBucketingFrom = 4096;

constexpr std::array<uint32_t, 3> kPercents = {50, 95, 99};

size_t BucketOf(uint64_t value) {
  if (value < kExactBelow) return static_cast<size_t>(value);
  const int exponent = 63 - std::countl_zero(value);  // >= kMantissaBits
  const uint64_t mantissa = (value >> (exponent - kMantissaBits)) & (kExactBelow - 1);
  return (static_cast<size_t>(exponent - kMantissaBits + 1) << kMantissaBits) +
         static_cast<size_t>(mantissa);
}

// The smallest value of bucket `b` (the inverse of BucketOf).
uint64_t BucketLowest(size_t b) {
  if (b < kExactBelow) return b;
  const int exponent = static_cast<int>(b >> kMantissaBits) + kMantissaBits - 1;
  const uint64_t mantissa = b & (kExactBelow - 1);
  return (kExactBelow | mantissa) << (exponent - kMantissaBits);
}

// The largest value of bucket `b`.
uint64_t BucketHighest(size_t b) {
  return b + 1 == kBuckets ? ~uint64_t{0} : BucketLowest(b + 1) - 1;
}

// std::nth_element for each rank, largest first: after it places rank i,
// everything before i is <= the value there, so each smaller rank is
// searched in the prefix only.
void SelectInPlace(std::span<uint64_t> values, const std::array<size_t, 3>& ranks,
                   std::array<uint64_t, 3>* out) {
  size_t end = values.size();
  for (size_t p = ranks.size(); p-- > 0;) {
    std::nth_element(values.begin(), values.begin() + ranks[p], values.begin() + end);
    (*out)[p] = values[ranks[p]];
    end = ranks[p];
  }
}

// The same by buckets, for large sets: one pass counts values per bucket,
// which tells in which bucket each rank lies and at which rank within it;
// a second pass copies out the values of those (few) buckets, and the
// selection runs on them only: two linear passes instead of repeated
// partitioning of the whole set. When the ranks' buckets hold more than a
// quarter of the values (most values alike), copying them would cost more
// than it saves: SelectInPlace instead.
void SelectByBuckets(std::span<uint64_t> values, const std::array<size_t, 3>& ranks,
                     std::array<uint64_t, 3>* out) {
  std::vector<uint64_t> counts(kBuckets, 0);
  for (const uint64_t v : values) ++counts[BucketOf(v)];
  std::array<size_t, 3> bucket{};
  std::array<size_t, 3> rank_in_bucket{};
  size_t p = 0;
  uint64_t before = 0;  // values in the buckets before b
  for (size_t b = 0; b < kBuckets && p < ranks.size(); ++b) {
    while (p < ranks.size() && ranks[p] < before + counts[b]) {
      bucket[p] = b;
      rank_in_bucket[p] = static_cast<size_t>(ranks[p] - before);
      ++p;
    }
    before += counts[b];
  }
  // Ranks sharing a bucket share one copy of it: the first such rank's
  // (ranks ascend and buckets are monotonic, so sharers are neighbours).
  std::array<size_t, 3> owner{};
  uint64_t copied = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    owner[i] = i > 0 && bucket[i] == bucket[i - 1] ? owner[i - 1] : i;
    if (owner[i] == i) copied += counts[bucket[i]];
  }
  if (copied > values.size() / 4) return SelectInPlace(values, ranks, out);
  std::array<std::vector<uint64_t>, 3> members;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (owner[i] == i) members[i].reserve(counts[bucket[i]]);
  }
  // The buckets as value ranges [low, low + span]: a subtraction and a
  // comparison per value and bucket instead of BucketOf again.
  std::array<uint64_t, 3> low{};
  std::array<uint64_t, 3> span{};
  for (size_t i = 0; i < ranks.size(); ++i) {
    low[i] = BucketLowest(bucket[i]);
    span[i] = BucketHighest(bucket[i]) - low[i];
  }
  for (const uint64_t v : values) {
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (v - low[i] <= span[i]) {
        members[owner[i]].push_back(v);
        break;
      }
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    std::vector<uint64_t>& in = members[owner[i]];
    std::nth_element(in.begin(), in.begin() + rank_in_bucket[i], in.end());
    (*out)[i] = in[rank_in_bucket[i]];
  }
}

}  // namespace

size_t NearestRankIndex(size_t count, uint32_t percent) {
  // ceil(percent * count / 100) without floating point; count is at most a
  // session's spans, far from overflowing a 64-bit product.
  return (static_cast<uint64_t>(percent) * count + 99) / 100 - 1;
}

DurationPercentiles ComputePercentiles(std::span<uint64_t> durations) {
  DurationPercentiles out;
  if (durations.empty()) return out;
  std::array<size_t, 3> ranks;
  for (size_t i = 0; i < kPercents.size(); ++i) {
    ranks[i] = NearestRankIndex(durations.size(), kPercents[i]);
  }
  std::array<uint64_t, 3> values;
  if (durations.size() < kBucketingFrom) {
    SelectInPlace(durations, ranks, &values);
  } else {
    SelectByBuckets(durations, ranks, &values);
  }
  out.p50 = values[0];
  out.p95 = values[1];
  out.p99 = values[2];
  return out;
}

DurationPercentiles SketchPercentiles(const DurationSketch& sketch, uint64_t min_ns,
                                      uint64_t max_ns) {
  const auto clamped = [&](double q) {
    const uint64_t value = sketch.Quantile(q);
    return min_ns > max_ns ? value : std::clamp(value, min_ns, max_ns);
  };
  return {clamped(0.50), clamped(0.95), clamped(0.99)};
}

}  // namespace optrace::daemon
