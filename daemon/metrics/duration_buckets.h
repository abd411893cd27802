// The bucket edges of optrace_op_duration_seconds: fixed, coarse and
// log-spaced for ops, from about 1 us to about 17 s.
#ifndef OPTRACE_DAEMON_METRICS_DURATION_BUCKETS_H_
#define OPTRACE_DAEMON_METRICS_DURATION_BUCKETS_H_

#include <bit>
#include <cstddef>
#include <cstdint>

namespace optrace::daemon {

// The upper bounds (Prometheus `le`, inclusive) are the powers of two
// 2^10 ns (1.024 us) .. 2^34 ns (17.2 s), then +Inf. Every one is a bucket
// boundary of DurationSketch: above 127 ns the sketch cuts each
// [2^e, 2^(e+1)) into 64 buckets, so 2^e always starts one of its buckets
// (duration_buckets_test checks it). The two line up up to the 1 ns at the
// edge itself: a duration of exactly 2^e ns is in this `le` bucket (as
// the format requires) and in the sketch bucket above it.
inline constexpr int kFirstDurationEdgeLog2 = 10;
inline constexpr int kLastDurationEdgeLog2 = 34;
// Finite buckets, then the +Inf bucket at index kDurationEdges.
inline constexpr size_t kDurationEdges = kLastDurationEdgeLog2 - kFirstDurationEdgeLog2 + 1;

// Upper bound of finite bucket `index` in ns. REQUIRES: index < kDurationEdges.
constexpr uint64_t DurationEdgeNs(size_t index) {
  return uint64_t{1} << (kFirstDurationEdgeLog2 + static_cast<int>(index));
}

// The first bucket whose upper bound is >= `ns`: kDurationEdges (+Inf)
// above the last edge. A bit scan, no loop.
constexpr size_t DurationBucketOf(uint64_t ns) {
  if (ns <= DurationEdgeNs(0)) return 0;
  const int ceil_log2 = std::bit_width(ns - 1);  // smallest e with 2^e >= ns
  if (ceil_log2 > kLastDurationEdgeLog2) return kDurationEdges;
  return static_cast<size_t>(ceil_log2 - kFirstDurationEdgeLog2);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_DURATION_BUCKETS_H_
