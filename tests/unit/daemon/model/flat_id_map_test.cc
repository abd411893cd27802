// FlatIdMap: lookups across growth, extreme ids.
#include "model/flat_id_map.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace optrace::daemon {
namespace {

TEST(FlatIdMapTest, Empty_FindsNothing) {
  FlatIdMap<int> map;
  EXPECT_EQ(map.Find(0), nullptr);
  EXPECT_EQ(map.Find(123), nullptr);
  EXPECT_EQ(map.size(), 0u);
}

TEST(FlatIdMapTest, ManyInserts_EveryValueFoundAfterGrowth) {
  std::mt19937_64 rng(3);
  std::unordered_map<uint64_t, uint32_t> reference;
  FlatIdMap<uint32_t> map;
  for (uint32_t i = 0; i < 20'000; ++i) {
    // Dense ids, random ids and the largest allowed one.
    const uint64_t id = i % 3 == 0   ? i
                        : i % 3 == 1 ? rng() % (FlatIdMap<uint32_t>::kNoId - 1)
                                     : FlatIdMap<uint32_t>::kNoId - 1 - i;
    if (reference.count(id) != 0) continue;
    reference[id] = i;
    map.Insert(id, i);
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [id, value] : reference) {
    const uint32_t* found = map.Find(id);
    ASSERT_NE(found, nullptr) << id;
    EXPECT_EQ(*found, value);
  }
  EXPECT_EQ(map.Find(20'001), nullptr);
}

}  // namespace
}  // namespace optrace::daemon
