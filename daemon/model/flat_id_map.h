// FlatIdMap: a small open-addressing hash map from a 64-bit id (a StringId,
// a packed target/device/stream) to a value, for the per-span lookups of
// queries and exports, where std::unordered_map's node allocations and
// pointer chasing would dominate.
#ifndef OPTRACE_DAEMON_MODEL_FLAT_ID_MAP_H_
#define OPTRACE_DAEMON_MODEL_FLAT_ID_MAP_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace optrace::daemon {

// Linear probing over power-of-two arrays, kept at most half full, so that
// a lookup touches one or two slots. Entries are never removed.
// Thread rules: a value type, one thread at a time.
template <typename Value>
class FlatIdMap {
  static_assert(!std::is_same_v<Value, bool>, "std::vector<bool> has no element addresses");

 public:
  // The one id the map cannot hold: it marks empty slots.
  static constexpr uint64_t kNoId = ~uint64_t{0};

  // The value stored for `id`, or nullptr. The pointer stays valid until the
  // next Insert.
  Value* Find(uint64_t id) {
    if (keys_.empty()) return nullptr;
    for (size_t slot = SlotOf(id);; slot = (slot + 1) & mask_) {
      if (keys_[slot] == id) return &values_[slot];
      if (keys_[slot] == kNoId) return nullptr;
    }
  }

  // Stores `value` for `id` and returns it (valid until the next Insert).
  // REQUIRES: `id` != kNoId and not in the map.
  Value& Insert(uint64_t id, Value value) {
    if ((size_ + 1) * 2 > keys_.size()) Grow();
    ++size_;
    return Place(id, std::move(value));
  }

  size_t size() const { return size_; }

 private:
  static constexpr size_t kFirstCapacity = 64;

  size_t SlotOf(uint64_t id) const {
    // Fibonacci hashing: the multiplication spreads consecutive ids (the
    // common case: dictionary ids) over the whole table.
    return static_cast<size_t>((id * 0x9e3779b97f4a7c15ULL) >> shift_);
  }

  Value& Place(uint64_t id, Value value) {
    size_t slot = SlotOf(id);
    while (keys_[slot] != kNoId) slot = (slot + 1) & mask_;
    keys_[slot] = id;
    values_[slot] = std::move(value);
    return values_[slot];
  }

  void Grow() {
    const size_t capacity = keys_.empty() ? kFirstCapacity : keys_.size() * 2;
    std::vector<uint64_t> old_keys(capacity, kNoId);
    std::vector<Value> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<int>(std::countr_zero(capacity));
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] != kNoId) Place(old_keys[i], std::move(old_values[i]));
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<Value> values_;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_FLAT_ID_MAP_H_
