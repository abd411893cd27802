#include "torch/op_id_cache.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace optrace::torch_ops {
namespace {

// One odd multiplier per key word: each word is spread on its own, and the
// products sum without a chain of dependent multiplications.
template <size_t N>
constexpr std::array<uint64_t, N> Multipliers() {
  std::array<uint64_t, N> out{};
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < N; ++i) {
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    out[i] = x | 1;
  }
  return out;
}

// The `count` (at most 8) bytes at `bytes` as a word, zero above them.
uint64_t Word(const char* bytes, size_t count) {
  uint64_t word = 0;
  if (count == 8) {
    std::memcpy(&word, bytes, 8);
    return word;
  }
  for (size_t i = 0; i < count; ++i) {
    word |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  }
  return word;
}

}  // namespace

bool OpKey::Pack(std::string_view name, std::span<const TensorShape> shapes,
                 std::string_view dtype) {
  if (name.size() > kNameBytes || dtype.size() > kDtypeBytes) return false;
  const size_t count = std::min(shapes.size(), kTaggedShapes);
  uint64_t header = 1 | uint64_t{name.size()} << 8 | uint64_t{dtype.size()} << 16 |
                    uint64_t{count} << 24;
  words_[kHeaderWords] = Word(dtype.data(), dtype.size());
  size_t word = kHeaderWords + kDtypeWords;
  for (size_t offset = 0; offset < name.size(); offset += 8) {
    words_[word++] = Word(name.data() + offset, std::min<size_t>(8, name.size() - offset));
  }
  // Two sizes a word, each word stored whole (Hash reads them back at once).
  size_t packed = 0;
  uint64_t pair = 0;
  for (size_t i = 0; i < count; ++i) {
    const std::span<const int64_t> dims = shapes[i].sizes;
    if (dims.size() > kMaxSizes - packed) return false;
    header |= uint64_t{dims.size()} << (32 + 8 * i);
    for (const int64_t dim : dims) {
      if (dim < 0 || dim > std::numeric_limits<int32_t>::max()) return false;
      if (packed++ % 2 == 0) {
        pair = static_cast<uint64_t>(dim);
      } else {
        words_[word++] = pair | static_cast<uint64_t>(dim) << 32;
      }
    }
  }
  if (packed % 2 != 0) words_[word++] = pair;
  words_[0] = header | uint64_t{word} << 56;
  return true;
}

uint64_t OpKey::Hash() const {
  static constexpr std::array<uint64_t, kWords> kMultipliers = Multipliers<kWords>();
  uint64_t h = 0;
  for (size_t i = 0; i < used_words(); ++i) h += words_[i] * kMultipliers[i];
  // MurmurHash3's finaliser: every bit of the sum reaches the low bits.
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

bool OpKey::operator==(const OpKey& other) const {
  // Equal headers mean the same layout and count of used words.
  if (words_[0] != other.words_[0]) return false;
  for (size_t i = 1; i < used_words(); ++i) {
    if (words_[i] != other.words_[i]) return false;
  }
  return true;
}

const OpIds* OpIdCache::Find(const OpKey& key, uint64_t hash) {
  const size_t set = hash & (kSets - 1);
  for (uint8_t way = 0; way < 2; ++way) {
    if (entries_[set][way].key == key) {
      recent_[set] = way;
      return &entries_[set][way].ids;
    }
  }
  return nullptr;
}

void OpIdCache::Insert(const OpKey& key, uint64_t hash, OpIds ids) {
  const size_t set = hash & (kSets - 1);
  const uint8_t way = recent_[set] == 0 ? 1 : 0;
  entries_[set][way] = Entry{key, ids};
  recent_[set] = way;
}

}  // namespace optrace::torch_ops
