// Nearest-rank percentiles of a set of durations, for GetStats.
#ifndef OPTRACE_DAEMON_QUERY_DURATION_PERCENTILES_H_
#define OPTRACE_DAEMON_QUERY_DURATION_PERCENTILES_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "model/duration_sketch.h"

namespace optrace::daemon {

// The percentiles GetStats reports. All 0 for an empty set.
struct DurationPercentiles {
  uint64_t p50 = 0;
  uint64_t p95 = 0;
  uint64_t p99 = 0;
};

// The index, in ascending order, of the nearest-rank `percent` percentile
// of `count` values: ceil(percent / 100 * count) - 1, computed in integers
// (no rounding surprises). The value there is the smallest one that at
// least `percent`% of the values are less than or equal to: always a value
// of the set, never an interpolation.
// REQUIRES: count >= 1, 1 <= percent <= 100.
size_t NearestRankIndex(size_t count, uint32_t percent);

// The nearest-rank p50, p95 and p99 of `durations`, exactly, in linear
// time without a full sort: small sets by std::nth_element over shrinking
// prefixes; large ones by counting values per log-linear bucket, then
// std::nth_element on the values of the buckets that hold the ranks only
// (a few percent of the set, unless most values are alike). May reorder
// `durations`.
DurationPercentiles ComputePercentiles(std::span<uint64_t> durations);

// The p50, p95 and p99 `sketch` gives (within DurationSketch's relative
// error of the nearest-rank ones), clamped to [min_ns, max_ns], the
// exact bounds of the same durations, which the exact percentiles lie in
// too (bounds the wrong way round, from stored data, are left alone).
DurationPercentiles SketchPercentiles(const DurationSketch& sketch, uint64_t min_ns,
                                      uint64_t max_ns);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_DURATION_PERCENTILES_H_
