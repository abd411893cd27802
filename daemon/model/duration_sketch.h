// DurationSketch: a mergeable summary of nanosecond durations from which
// quantiles are read within a stated relative error, in bounded memory.
#ifndef OPTRACE_DAEMON_MODEL_DURATION_SKETCH_H_
#define OPTRACE_DAEMON_MODEL_DURATION_SKETCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace optrace::daemon {

// Log-linear buckets (as HdrHistogram's, at integer cost: a bit scan and a
// shift per value, no log()). 0 ns has a bucket of its own; 1..127 ns are
// exact; above, each power of two [2^e, 2^(e+1)) is cut into 64 equal
// buckets, so a bucket is at most 1/64 of its lower bound wide and the
// value read back for it (its middle) is within kRelativeError = 1/128
// (0.79%) of every duration in it. The whole uint64 range is
// kBucketCount buckets; a sketch keeps a contiguous run of at most
// kMaxBuckets of them (plus the 0 ns count). When its durations span more
// than that (a ratio above 2^32 between the largest and smallest nonzero
// duration), the lowest buckets are collapsed into the lowest kept one, as
// DDSketch's collapsing-lowest store does: the error bound then still holds
// for every quantile whose value lies in the kept range, and quantiles
// below it read as that range's lowest bucket. Counts saturate at
// UINT64_MAX. Thread rules: a value type, one thread at a time.
class DurationSketch {
 public:
  static constexpr double kRelativeError = 1.0 / 128;
  static constexpr uint32_t kBucketCount = 128 + 57 * 64;  // 1..UINT64_MAX
  static constexpr uint32_t kMaxBuckets = 2048;
  // The first byte of Serialize's output.
  static constexpr uint8_t kFormatVersion = 1;

  // Counts one duration.
  void Add(uint64_t ns);

  // Adds every duration `other` counted: afterwards the sketch is the one
  // that Add of both sketches' durations would have built (bucket for
  // bucket, collapsing included when neither had collapsed).
  void Merge(const DurationSketch& other);

  // The nearest-rank q-quantile (the value at index ceil(q * n) - 1 of the
  // n sorted durations, index 0 for q <= 0) within kRelativeError of the
  // exact one; 0 when empty. REQUIRES: 0 <= q <= 1.
  uint64_t Quantile(double q) const;

  // Forgets every duration, keeping the memory for the next ones.
  void Clear();

  // Durations counted (saturating).
  uint64_t Count() const { return count_; }

  // The compact bytes of the sketch, for an SQLite BLOB: version byte,
  // then varints (zero count, first bucket index, bucket count, each
  // bucket's count). An empty sketch is 4 bytes.
  std::string Serialize() const;

  // The sketch that `bytes_untrusted` (Serialize's output, or anything)
  // holds. Never trusts them: errors (kInvalidArgument, naming the problem
  // and the value) for an unknown version, a truncated or overlong varint,
  // buckets outside the range or over kMaxBuckets, a run that does not
  // start and end with a nonzero bucket, a total over UINT64_MAX, and
  // bytes after the end.
  static Result<DurationSketch> Parse(std::string_view bytes_untrusted);

  bool operator==(const DurationSketch&) const = default;

  // The bucket of `ns` > 0, and the value read back for bucket `index`
  // (for tests and docs). REQUIRES: ns > 0; 0 < index < kBucketCount.
  static uint32_t BucketOf(uint64_t ns);
  static uint64_t ValueOf(uint32_t index);

 private:
  // Adds `n` durations to bucket `index`, widening or collapsing the run.
  void AddToBucket(uint32_t index, uint64_t n);

  uint64_t count_ = 0;
  uint64_t zero_count_ = 0;
  uint32_t first_index_ = 0;       // bucket of buckets_[0]; meaningless when empty
  std::vector<uint64_t> buckets_;  // contiguous; first and last nonzero when not empty
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_DURATION_SKETCH_H_
