// The per-thread op id cache: keys equal exactly when OpTag's inputs are,
// and a cache that, in front of interning, gives every op the ids that
// interning its tag would.
#include "torch/op_id_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace optrace::torch_ops {
namespace {

using Sizes = std::vector<std::vector<int64_t>>;

std::vector<TensorShape> ShapesOf(const Sizes& sizes) {
  std::vector<TensorShape> shapes;
  for (const auto& s : sizes) shapes.push_back({std::span<const int64_t>(s)});
  return shapes;
}

OpKey KeyOf(std::string_view name, const Sizes& sizes, std::string_view dtype = "f32") {
  OpKey key;
  EXPECT_TRUE(key.Pack(name, ShapesOf(sizes), dtype));
  return key;
}

std::string TagOf(std::string_view name, const Sizes& sizes, std::string_view dtype) {
  char out[kMaxTagBytes];
  return std::string(out, OpTag(name, ShapesOf(sizes), dtype, out));
}

TEST(OpIdCacheTest, Key_SameInputsEqual) {
  EXPECT_EQ(KeyOf("aten::mul", {{3, 5}, {}}), KeyOf("aten::mul", {{3, 5}, {}}));
  EXPECT_EQ(KeyOf("aten::mul", {{3, 5}, {}}).Hash(), KeyOf("aten::mul", {{3, 5}, {}}).Hash());
}

TEST(OpIdCacheTest, Key_SameSizesInOtherShapesDiffer) {
  // Concatenated sizes are the same; the ranks are not.
  EXPECT_FALSE(KeyOf("aten::mul", {{1, 2}, {3}}) == KeyOf("aten::mul", {{1}, {2, 3}}));
  EXPECT_FALSE(KeyOf("aten::mul", {{1, 2, 3}}) == KeyOf("aten::mul", {{1, 2}, {3}}));
  // A 0-d tensor counts as a shape.
  EXPECT_FALSE(KeyOf("aten::mul", {{4}}) == KeyOf("aten::mul", {{4}, {}}));
}

TEST(OpIdCacheTest, Key_DigitsThatJoinAlikeDiffer) {
  EXPECT_FALSE(KeyOf("aten::neg", {{12, 3}}) == KeyOf("aten::neg", {{1, 23}}));
}

TEST(OpIdCacheTest, Key_NameAndDtypeSplitElsewhereDiffer) {
  EXPECT_FALSE(KeyOf("aten::mu", {{2}}, "lf32") == KeyOf("aten::mul", {{2}}, "f32"));
  EXPECT_FALSE(KeyOf("aten::mul", {{2}}, "f32") == KeyOf("aten::mul", {{2}}, "f64"));
  EXPECT_FALSE(KeyOf("aten::mul", {{2}}, "") == KeyOf("aten::mul", {{2}}, "f32"));
}

TEST(OpIdCacheTest, Key_ShapesBeyondTheTaggedOnesIgnored) {
  static_assert(kTaggedShapes == 3);
  EXPECT_EQ(KeyOf("aten::addcmul", {{2}, {2}, {2}, {7, 7}}),
            KeyOf("aten::addcmul", {{2}, {2}, {2}, {9}}));
  EXPECT_EQ(TagOf("aten::addcmul", {{2}, {2}, {2}, {7, 7}}, "f32"),
            TagOf("aten::addcmul", {{2}, {2}, {2}, {9}}, "f32"));
}

TEST(OpIdCacheTest, Key_WhatDoesNotFitIsNotPacked) {
  OpKey key;
  EXPECT_FALSE(key.Pack(std::string(OpKey::kNameBytes + 1, 'n'), ShapesOf({{1}}), "f32"));
  EXPECT_TRUE(key.Pack(std::string(OpKey::kNameBytes, 'n'), ShapesOf({{1}}), "f32"));
  EXPECT_FALSE(key.Pack("aten::neg", ShapesOf({{1}}), std::string(OpKey::kDtypeBytes + 1, 'd')));
  EXPECT_TRUE(key.Pack("aten::neg", ShapesOf({{1}}), std::string(OpKey::kDtypeBytes, 'd')));
  EXPECT_FALSE(
      key.Pack("aten::cat", ShapesOf({std::vector<int64_t>(OpKey::kMaxSizes + 1, 2)}), "f32"));
  EXPECT_TRUE(key.Pack("aten::cat", ShapesOf({std::vector<int64_t>(OpKey::kMaxSizes, 2)}), "f32"));
  EXPECT_FALSE(key.Pack("aten::neg", ShapesOf({{int64_t{1} << 31}}), "f32"));
  EXPECT_TRUE(key.Pack("aten::neg", ShapesOf({{(int64_t{1} << 31) - 1}}), "f32"));
  EXPECT_FALSE(key.Pack("aten::neg", ShapesOf({{-1}}), "f32"));
}

// A stand-in for the name tables: an id per distinct text, from 2.
class Interner {
 public:
  uint32_t Id(const std::string& text) { return ids_.emplace(text, ids_.size() + 2).first->second; }

 private:
  std::map<std::string, uint32_t> ids_;
};

// The ids of an op the way the tracer gets them: from the cache, else
// interned and cached.
OpIds CachedIds(OpIdCache& cache, Interner& names, Interner& tags, const std::string& name,
                const Sizes& sizes, const std::string& dtype, bool* hit) {
  OpKey key;
  const bool packed = key.Pack(name, ShapesOf(sizes), dtype);
  const uint64_t hash = packed ? key.Hash() : 0;
  if (packed) {
    if (const OpIds* cached = cache.Find(key, hash)) {
      *hit = true;
      return *cached;
    }
  }
  *hit = false;
  const std::string tag = TagOf(name, sizes, dtype);
  const OpIds ids{names.Id(name), tag.empty() ? 0 : tags.Id(tag)};
  if (packed) cache.Insert(key, hash, ids);
  return ids;
}

TEST(OpIdCacheTest, AlternatingInputs_EveryOpGetsTheIdsOfItsOwnTag) {
  struct Op {
    std::string name;
    Sizes sizes;
    std::string dtype;
  };
  // Ops whose inputs a key that dropped ranks, lengths or dtypes would
  // confuse, called in turn, again and again.
  const std::vector<Op> ops = {
      {"aten::mul", {{1, 3}, {3}}, "f32"},
      {"aten::mul", {{1}, {3, 3}}, "f32"},
      {"aten::mul", {{1, 3}, {3}}, "f64"},
      {"aten::mul", {{1, 3}, {3}}, "i64"},
      {"aten::mul", {{1, 3}, {3}}, ""},
      {"aten::mu", {{1, 3}, {3}}, "lf32"},
      {"aten::neg", {{12, 3}}, "f32"},
      {"aten::neg", {{1, 23}}, "f32"},
      {"aten::addmm", {{4}, {2, 3}, {3, 4}}, "f32"},
      {"aten::addmm", {{4}, {2}, {3, 3, 4}}, "f32"},
      {"aten::zeros", {}, "f32"},
      {"aten::mul", {{3, 1}, {}}, "f32"},
  };
  auto cache = std::make_unique<OpIdCache>();
  Interner names, tags, reference_names, reference_tags;
  int hits = 0;
  for (int round = 0; round < 5; ++round) {
    for (const Op& op : ops) {
      bool hit = false;
      const OpIds ids = CachedIds(*cache, names, tags, op.name, op.sizes, op.dtype, &hit);
      hits += hit ? 1 : 0;
      const std::string tag = TagOf(op.name, op.sizes, op.dtype);
      EXPECT_EQ(ids.name_id, reference_names.Id(op.name)) << op.name;
      EXPECT_EQ(ids.tag_id, tag.empty() ? 0 : reference_tags.Id(tag)) << tag;
    }
  }
  EXPECT_EQ(hits, 4 * static_cast<int>(ops.size()));  // every round after the first
}

TEST(OpIdCacheTest, ManyRandomOps_CachedIdsAlwaysTheInternedOnes) {
  // More distinct ops than the cache holds: entries are replaced all along.
  std::mt19937 random(7);
  const std::vector<std::string> names = {"aten::mul",    "aten::add",         "aten::mm",
                                          "aten::linear", "aten::convolution", "AddmmBackward0"};
  const std::vector<std::string> dtypes = {"f32", "f64", "i64", ""};
  auto cache = std::make_unique<OpIdCache>();
  Interner cached_names, cached_tags, reference_names, reference_tags;
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string& name = names[random() % names.size()];
    Sizes sizes(random() % 4);
    for (auto& shape : sizes) {
      shape.resize(random() % 4);
      for (auto& dim : shape) dim = static_cast<int64_t>(random() % 4);
    }
    const std::string& dtype = dtypes[random() % dtypes.size()];
    bool hit = false;
    const OpIds ids = CachedIds(*cache, cached_names, cached_tags, name, sizes, dtype, &hit);
    hits += hit ? 1 : 0;
    const std::string tag = TagOf(name, sizes, dtype);
    ASSERT_EQ(ids.name_id, reference_names.Id(name));
    ASSERT_EQ(ids.tag_id, tag.empty() ? 0 : reference_tags.Id(tag)) << tag;
  }
  EXPECT_GT(hits, 0);
}

TEST(OpIdCacheTest, FullSet_TheLessRecentlyFoundEntryMakesRoom) {
  // Three keys of one set.
  std::vector<OpKey> keys;
  std::vector<uint64_t> hashes;
  const uint64_t set = KeyOf("aten::neg", {{1}}).Hash() & (OpIdCache::kSets - 1);
  for (int64_t n = 1; keys.size() < 3; ++n) {
    const OpKey key = KeyOf("aten::neg", {{n}});
    if ((key.Hash() & (OpIdCache::kSets - 1)) != set) continue;
    keys.push_back(key);
    hashes.push_back(key.Hash());
  }
  auto cache = std::make_unique<OpIdCache>();
  cache->Insert(keys[0], hashes[0], {10, 20});
  cache->Insert(keys[1], hashes[1], {11, 21});
  ASSERT_NE(cache->Find(keys[0], hashes[0]), nullptr);  // keys[1] is now the less recent
  cache->Insert(keys[2], hashes[2], {12, 22});
  const OpIds* first = cache->Find(keys[0], hashes[0]);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name_id, 10u);
  EXPECT_EQ(first->tag_id, 20u);
  EXPECT_EQ(cache->Find(keys[1], hashes[1]), nullptr);
  const OpIds* third = cache->Find(keys[2], hashes[2]);
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->name_id, 12u);
}

TEST(OpIdCacheTest, EmptyCache_FindsNothing) {
  auto cache = std::make_unique<OpIdCache>();
  const OpKey key = KeyOf("aten::neg", {{1}});
  EXPECT_EQ(cache->Find(key, key.Hash()), nullptr);
}

}  // namespace
}  // namespace optrace::torch_ops
