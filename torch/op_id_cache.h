// A thread's memory of the name and tag ids of the ops it ran, so that an
// op called again with the same name, dtype and tensor shapes reuses them
// instead of formatting its tag and hashing both texts into the name
// tables (most of liboptrace_torch's per-op cost before it; see
// docs/BENCHMARKS.md, "PyTorch ops"). Knows nothing of libtorch.
#ifndef OPTRACE_TORCH_OP_ID_CACHE_H_
#define OPTRACE_TORCH_OP_ID_CACHE_H_

#include <cstddef>
#include <cstdint>
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
  // together, that a key holds.
  static constexpr size_t kNameBytes = 40;
  static constexpr size_t kDtypeBytes = 8;
  static constexpr size_t kMaxSizes = 16;

  // Packs the inputs of OpTag. Returns false when they do not fit (name
  // longer than kNameBytes, dtype longer than kDtypeBytes, more than
  // kMaxSizes sizes in the tagged shapes, a size outside [0, 2^31)): the
  // key is then unusable and the op is not cached. Shapes beyond
  // kTaggedShapes are ignored.
  bool Pack(std::string_view name, std::span<const TensorShape> shapes, std::string_view dtype);

  // A hash of a packed key, well mixed in its low bits.
  uint64_t Hash() const;

  // Compares packed keys (or a packed key with zero).
  bool operator==(const OpKey& other) const;

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

  uint64_t words_[kWords];
};

// The interned ids of one op: its name's, and its tag's (0: no tag).
struct OpIds {
  uint32_t name_id;
  uint32_t tag_id;
};

// The ids of recently run ops by key: 256 sets of two entries (64 KiB), the
// less recently found of a set making room for a new key. Meant to live in
// a ThreadBlock: zero is its empty state and it is trivially destructible.
// Not thread-safe: one per thread.
class OpIdCache {
 public:
  static constexpr size_t kSets = 256;  // a power of two

  // The ids cached for `key`, whose Hash() is `hash`, or nullptr. The
  // pointer is valid until the next Insert.
  const OpIds* Find(const OpKey& key, uint64_t hash);

  // Caches `ids` for `key` (hash: its Hash()), which Find did not find.
  void Insert(const OpKey& key, uint64_t hash, OpIds ids);

 private:
  struct Entry {
    OpKey key;
    OpIds ids;
  };
  static_assert(sizeof(Entry) == 128);

  Entry entries_[kSets][2];
  uint8_t recent_[kSets];  // per set: the entry Find or Insert touched last
};

}  // namespace optrace::torch_ops

#endif  // OPTRACE_TORCH_OP_ID_CACHE_H_
