// A thread's memory of the name and tag ids of the ops it ran, so that an
// op called again with the same name, dtype and tensor shapes reuses them
// instead of formatting its tag and hashing both texts into the name
// tables (most of liboptrace_torch's per-op cost before it; see
// docs/BENCHMARKS.md, "PyTorch ops"). Knows nothing of libtorch.
#ifndef OPTRACE_TORCH_OP_ID_CACHE_H_
#define OPTRACE_TORCH_OP_ID_CACHE_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>

#include "torch/op_tag.h"

namespace optrace::torch_ops {

// The inputs of OpTag(name, shapes, dtype), packed so that two keys are
// equal exactly when the inputs are: the name and dtype texts with their
// lengths, and the sizes of the first kTaggedShapes shapes, each with its
// rank (so that [1,2],[3] and [1],[2,3] differ, as do "aten::mu"+"lf32"
// and "aten::mul"+"f32"). Equal keys therefore give the same tag. Plain
// data; zero (all words 0) is no key: Pack always sets the first word.
class OpKey {
 public:
  // The longest name and dtype, and the most sizes of all tagged shapes
  // together, that a key holds. The autograd engine's scopes have names of
  // up to about 70 bytes ("autograd::engine::evaluate_function:
  // torch::autograd::AccumulateGrad").
  static constexpr size_t kNameBytes = 72;
  static constexpr size_t kDtypeBytes = 8;
  static constexpr size_t kMaxSizes = 16;

  // Packs the inputs of OpTag. Returns false when they do not fit (name
  // longer than kNameBytes, dtype longer than kDtypeBytes, more than
  // kMaxSizes sizes in the tagged shapes, a size outside [0, 2^31)): the
  // key is then unusable and the op is not cached. Shapes beyond
  // kTaggedShapes are ignored.
  inline bool Pack(std::string_view name, std::span<const TensorShape> shapes,
                   std::string_view dtype);

  // A hash of a packed key, well mixed in its low bits.
  inline uint64_t Hash() const;

  // Compares packed keys (or a packed key with zero).
  inline bool operator==(const OpKey& other) const;

 private:
  // Word 0 (the header): 1, name length, dtype length, shape count, the
  // shapes' ranks, the count of words used; word 1: the dtype text; then
  // the name text, then the sizes, 32 bits each. Words past the used ones
  // are not written.
  static constexpr size_t kHeaderWords = 1;
  static constexpr size_t kDtypeWords = 1;
  static constexpr size_t kNameWords = kNameBytes / 8;
  static constexpr size_t kSizeWords = kMaxSizes / 2;
  static constexpr size_t kWords = kHeaderWords + kDtypeWords + kNameWords + kSizeWords;
  static_assert(kTaggedShapes <= 3, "the header holds three ranks");
  static_assert(kDtypeBytes == 8 * kDtypeWords && kNameBytes == 8 * kNameWords);

  size_t used_words() const { return words_[0] >> 56; }

  friend class OpIdCache;  // copies the used words only (the rest is unset)
  uint64_t words_[kWords];
};

// The interned ids of one op: its name's, and its tag's (0: no tag).
struct OpIds {
  uint32_t name_id;
  uint32_t tag_id;
};

// The ids of recently run ops by key: 256 sets of two entries (80 KiB), the
// less recently found of a set making room for a new key. Meant to live in
// a ThreadBlock: zero is its empty state and it is trivially destructible.
// Not thread-safe: one per thread.
class OpIdCache {
 public:
  static constexpr size_t kSets = 256;  // a power of two

  // The ids cached for `key`, whose Hash() is `hash`, or nullptr. The
  // pointer is valid until the next Insert.
  inline const OpIds* Find(const OpKey& key, uint64_t hash);

  // Caches `ids` for `key` (hash: its Hash()), which Find did not find.
  void Insert(const OpKey& key, uint64_t hash, OpIds ids);

 private:
  // The ids first, next to the words of the key that every key uses.
  struct alignas(32) Entry {
    OpIds ids;
    OpKey key;
  };
  static_assert(sizeof(Entry) == 160);

  Entry entries_[kSets][2];
  uint8_t recent_[kSets];  // per set: the entry Find or Insert touched last
};

// Inline: the tracer runs Pack, Hash and Find for every op.

namespace op_key_detail {

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

// The `count` (at most 8) bytes at `bytes` as a word, without a loop: two
// 4-byte loads that overlap when `count` is below 8, or three bytes when
// it is below 4. Words of texts of the same length are equal exactly when
// the texts are (each byte lands in the word at least once).
inline uint64_t Word(const char* bytes, size_t count) {
  if (count >= 4) {
    uint32_t low;
    uint32_t high;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + count - 4, 4);
    return low | uint64_t{high} << 32;
  }
  if (count == 0) return 0;
  const auto byte = [bytes](size_t i) { return uint64_t{static_cast<unsigned char>(bytes[i])}; };
  return byte(0) | byte(count / 2) << 8 | byte(count - 1) << 16;
}

}  // namespace op_key_detail

inline bool OpKey::Pack(std::string_view name, std::span<const TensorShape> shapes,
                        std::string_view dtype) {
  if (name.size() > kNameBytes || dtype.size() > kDtypeBytes) return false;
  const size_t count = std::min(shapes.size(), kTaggedShapes);
  uint64_t header =
      1 | uint64_t{name.size()} << 8 | uint64_t{dtype.size()} << 16 | uint64_t{count} << 24;
  words_[kHeaderWords] = op_key_detail::Word(dtype.data(), dtype.size());
  size_t word = kHeaderWords + kDtypeWords;
  size_t offset = 0;
  for (; offset + 8 <= name.size(); offset += 8) std::memcpy(&words_[word++], &name[offset], 8);
  if (offset < name.size())
    words_[word++] = op_key_detail::Word(&name[offset], name.size() - offset);
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

inline uint64_t OpKey::Hash() const {
  static constexpr std::array<uint64_t, kWords> kMultipliers = op_key_detail::Multipliers<kWords>();
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

inline bool OpKey::operator==(const OpKey& other) const {
  // Equal headers mean the same layout and count of used words.
  if (words_[0] != other.words_[0]) return false;
  for (size_t i = 1; i < used_words(); ++i) {
    if (words_[i] != other.words_[i]) return false;
  }
  return true;
}

inline const OpIds* OpIdCache::Find(const OpKey& key, uint64_t hash) {
  const size_t set = hash & (kSets - 1);
  // The more recent entry first: a set that holds one key is answered by
  // one look at the table (entries are out of the CPU's caches between
  // two runs of an op more often than not).
  const uint8_t recent = recent_[set];
  if (entries_[set][recent].key == key) return &entries_[set][recent].ids;
  const uint8_t other = recent ^ 1;
  if (entries_[set][other].key == key) {
    recent_[set] = other;
    return &entries_[set][other].ids;
  }
  return nullptr;
}

}  // namespace optrace::torch_ops

#endif  // OPTRACE_TORCH_OP_ID_CACHE_H_
