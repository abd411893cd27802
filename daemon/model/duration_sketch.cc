#include "model/duration_sketch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace optrace::daemon {
namespace {

constexpr uint32_t kExactBelow = 128;   // 1..127 ns have a bucket each
constexpr uint32_t kSubBucketBits = 6;  // 64 buckets per power of two above
constexpr uint64_t kMaxCount = std::numeric_limits<uint64_t>::max();
constexpr size_t kMaxVarintBytes = 10;

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > kMaxCount - a ? kMaxCount : a + b; }

void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(value) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Reads varints from untrusted bytes, remembering the first problem.
class VarintReader {
 public:
  explicit VarintReader(std::string_view bytes) : bytes_(bytes) {}

  // The next varint, or an error naming `what` and the offset.
  Result<uint64_t> Next(const char* what) {
    uint64_t value = 0;
    for (size_t i = 0; i < kMaxVarintBytes; ++i) {
      if (pos_ == bytes_.size()) {
        return Status::InvalidArgument("duration sketch: " + std::string(what) +
                                       " truncated at byte " + std::to_string(pos_));
      }
      const uint8_t byte = static_cast<uint8_t>(bytes_[pos_++]);
      // The tenth byte may only carry the 64th bit.
      if (i == kMaxVarintBytes - 1 && byte > 1) break;
      value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) return value;
    }
    return Status::InvalidArgument("duration sketch: " + std::string(what) +
                                   " is an overlong varint ending at byte " + std::to_string(pos_));
  }

  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

uint32_t DurationSketch::BucketOf(uint64_t ns) {
  if (ns < kExactBelow) return static_cast<uint32_t>(ns);
  const uint32_t exponent = static_cast<uint32_t>(std::bit_width(ns)) - 1;  // >= 7
  const uint32_t shift = exponent - kSubBucketBits;
  const uint32_t sub = static_cast<uint32_t>(ns >> shift) - (1u << kSubBucketBits);  // 0..63
  return kExactBelow + ((exponent - 7) << kSubBucketBits) + sub;
}

uint64_t DurationSketch::ValueOf(uint32_t index) {
  if (index < kExactBelow) return index;
  const uint32_t exponent = ((index - kExactBelow) >> kSubBucketBits) + 7;
  const uint32_t shift = exponent - kSubBucketBits;
  const uint64_t mantissa =
      (index & ((1u << kSubBucketBits) - 1)) + (uint64_t{1} << kSubBucketBits);
  // The middle of [mantissa << shift, (mantissa + 1) << shift).
  return (mantissa << shift) + (uint64_t{1} << (shift - 1));
}

void DurationSketch::Add(uint64_t ns) {
  count_ = SaturatingAdd(count_, 1);
  if (ns == 0) {
    zero_count_ = SaturatingAdd(zero_count_, 1);
    return;
  }
  const uint32_t index = BucketOf(ns);
  if (!buckets_.empty() && index >= first_index_ && index - first_index_ < buckets_.size()) {
    uint64_t& bucket = buckets_[index - first_index_];
    bucket = SaturatingAdd(bucket, 1);
    return;
  }
  AddToBucket(index, 1);
}

void DurationSketch::AddToBucket(uint32_t index, uint64_t n) {
  if (buckets_.empty()) {
    first_index_ = index;
    buckets_.assign(1, n);
    return;
  }
  const uint32_t last_index = first_index_ + static_cast<uint32_t>(buckets_.size()) - 1;
  if (index < first_index_) {
    // Below the run: widen it downwards, or into its lowest bucket when
    // that would take it over kMaxBuckets.
    if (last_index - index >= kMaxBuckets) index = last_index - (kMaxBuckets - 1);
    if (index < first_index_) {
      buckets_.insert(buckets_.begin(), first_index_ - index, 0);
      first_index_ = index;
    }
  } else if (index > last_index) {
    buckets_.resize(index - first_index_ + 1, 0);
    if (buckets_.size() > kMaxBuckets) {
      // Collapse the lowest buckets into the lowest one kept.
      const size_t excess = buckets_.size() - kMaxBuckets;
      uint64_t collapsed = 0;
      for (size_t i = 0; i <= excess; ++i) collapsed = SaturatingAdd(collapsed, buckets_[i]);
      buckets_.erase(buckets_.begin(), buckets_.begin() + static_cast<ptrdiff_t>(excess));
      buckets_.front() = collapsed;
      first_index_ += static_cast<uint32_t>(excess);
    }
  }
  uint64_t& bucket = buckets_[index - first_index_];
  bucket = SaturatingAdd(bucket, n);
  // Collapsing can leave zeros at the start of the run: trim them so that
  // the run starts with a nonzero bucket (the lowest kept one got the sum).
  while (buckets_.front() == 0) {
    buckets_.erase(buckets_.begin());
    ++first_index_;
  }
}

void DurationSketch::Merge(const DurationSketch& other) {
  count_ = SaturatingAdd(count_, other.count_);
  zero_count_ = SaturatingAdd(zero_count_, other.zero_count_);
  if (other.buckets_.empty()) return;
  const uint32_t other_last = other.first_index_ + static_cast<uint32_t>(other.buckets_.size()) - 1;
  const uint32_t first =
      buckets_.empty() ? other.first_index_ : std::min(first_index_, other.first_index_);
  const uint32_t last =
      buckets_.empty()
          ? other_last
          : std::max(first_index_ + static_cast<uint32_t>(buckets_.size()) - 1, other_last);
  if (last - first >= kMaxBuckets) {
    // The union needs a collapse: bucket by bucket, highest first, so that
    // it happens once, at the bottom.
    for (size_t i = other.buckets_.size(); i-- > 0;) {
      if (other.buckets_[i] != 0) {
        AddToBucket(other.first_index_ + static_cast<uint32_t>(i), other.buckets_[i]);
      }
    }
    return;
  }
  // The common case: widen the run once, then add bucket by bucket.
  if (buckets_.empty()) {
    first_index_ = first;
  } else if (first < first_index_) {
    buckets_.insert(buckets_.begin(), first_index_ - first, 0);
    first_index_ = first;
  }
  buckets_.resize(last - first + 1, 0);
  uint64_t* into = buckets_.data() + (other.first_index_ - first_index_);
  for (size_t i = 0; i < other.buckets_.size(); ++i)
    into[i] = SaturatingAdd(into[i], other.buckets_[i]);
}

void DurationSketch::Clear() {
  count_ = 0;
  zero_count_ = 0;
  first_index_ = 0;
  buckets_.clear();
}

uint64_t DurationSketch::Quantile(double q) const {
  if (count_ == 0) return 0;
  // Compared as doubles first: a count near 2^64 rounds up to 2^64, which
  // no uint64_t holds.
  const double rank_real = std::ceil(q * static_cast<double>(count_));
  const uint64_t rank = rank_real >= static_cast<double>(count_) ? count_ - 1
                        : rank_real <= 1                         ? 0
                                         : static_cast<uint64_t>(rank_real) - 1;
  if (rank < zero_count_) return 0;
  uint64_t seen = zero_count_;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen = SaturatingAdd(seen, buckets_[i]);
    if (rank < seen) return ValueOf(first_index_ + static_cast<uint32_t>(i));
  }
  // Only reachable when counts saturated: the largest bucket.
  return ValueOf(first_index_ + static_cast<uint32_t>(buckets_.size()) - 1);
}

std::string DurationSketch::Serialize() const {
  std::string out;
  out.reserve(4 + buckets_.size() * 2);
  out.push_back(static_cast<char>(kFormatVersion));
  PutVarint(out, zero_count_);
  PutVarint(out, buckets_.empty() ? 0 : first_index_);
  PutVarint(out, buckets_.size());
  for (const uint64_t bucket : buckets_) PutVarint(out, bucket);
  return out;
}

Result<DurationSketch> DurationSketch::Parse(std::string_view bytes_untrusted) {
  if (bytes_untrusted.empty()) return Status::InvalidArgument("duration sketch: no bytes");
  const uint8_t version = static_cast<uint8_t>(bytes_untrusted[0]);
  if (version != kFormatVersion) {
    return Status::InvalidArgument("duration sketch: format version " + std::to_string(version) +
                                   ", expected " + std::to_string(kFormatVersion));
  }
  VarintReader reader(bytes_untrusted.substr(1));
  DurationSketch sketch;
  Result<uint64_t> zeros = reader.Next("zero count");
  if (!zeros.ok()) return zeros.status();
  Result<uint64_t> first = reader.Next("first bucket");
  if (!first.ok()) return first.status();
  Result<uint64_t> size = reader.Next("bucket count");
  if (!size.ok()) return size.status();
  if (size.value() > kMaxBuckets) {
    return Status::InvalidArgument("duration sketch: " + std::to_string(size.value()) +
                                   " buckets, at most " + std::to_string(kMaxBuckets));
  }
  if (size.value() > 0 && (first.value() == 0 || first.value() >= kBucketCount ||
                           size.value() > kBucketCount - first.value())) {
    return Status::InvalidArgument("duration sketch: buckets " + std::to_string(first.value()) +
                                   " + " + std::to_string(size.value()) + " outside 1.." +
                                   std::to_string(kBucketCount - 1));
  }
  uint64_t total = zeros.value();
  sketch.zero_count_ = zeros.value();
  sketch.first_index_ = size.value() > 0 ? static_cast<uint32_t>(first.value()) : 0;
  sketch.buckets_.reserve(static_cast<size_t>(size.value()));
  for (uint64_t i = 0; i < size.value(); ++i) {
    Result<uint64_t> bucket = reader.Next("bucket");
    if (!bucket.ok()) return bucket.status();
    if (bucket.value() > kMaxCount - total) {
      return Status::InvalidArgument("duration sketch: counts add up to more than 2^64 at bucket " +
                                     std::to_string(first.value() + i));
    }
    total += bucket.value();
    sketch.buckets_.push_back(bucket.value());
  }
  if (!sketch.buckets_.empty() && (sketch.buckets_.front() == 0 || sketch.buckets_.back() == 0)) {
    return Status::InvalidArgument("duration sketch: the run of " +
                                   std::to_string(sketch.buckets_.size()) +
                                   " buckets starts or ends with an empty one");
  }
  if (!reader.AtEnd()) {
    return Status::InvalidArgument(
        "duration sketch: " + std::to_string(bytes_untrusted.size() - 1 - reader.pos()) +
        " bytes after the last bucket");
  }
  sketch.count_ = total;
  return sketch;
}

}  // namespace optrace::daemon
