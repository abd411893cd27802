#include "kernels/dispatch_tag_cache.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace optrace::kernels {
namespace {

// A fake string table: records what is interned; the id of a string is its
// position + 1 (0 is the empty string in optrace).
class FakeStringTable {
 public:
  static uint32_t Intern(std::string_view text) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    strings_.emplace_back(text);
    return static_cast<uint32_t>(strings_.size());
  }
  static std::vector<std::string> Strings() {
    std::lock_guard<std::mutex> lock(mu_);
    return strings_;
  }
  static std::string Lookup(uint32_t id) { return Strings().at(id - 1); }
  static void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    strings_.clear();
  }

 private:
  static inline std::mutex mu_;
  static inline std::vector<std::string> strings_;
};

class DispatchTagCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { FakeStringTable::Clear(); }
};

TEST_F(DispatchTagCacheTest, TagId_SameShapeTwice_InternedOnce) {
  DispatchTagCache cache(&FakeStringTable::Intern);
  const uint32_t first = cache.TagId(OpShape::Matmul(128, 256, 512));
  const uint32_t second = cache.TagId(OpShape::Matmul(128, 256, 512));
  EXPECT_EQ(first, second);
  EXPECT_EQ(FakeStringTable::Strings(), std::vector<std::string>{"matmul_128x256x512_f32"});
}

TEST_F(DispatchTagCacheTest, TagId_DynamicShapes_OneTagPerDistinctShape) {
  DispatchTagCache cache(&FakeStringTable::Intern);
  for (int round = 0; round < 3; ++round) {
    for (uint64_t batch : {1u, 8u, 13u}) {
      const uint32_t id = cache.TagId(OpShape::RmsNorm(batch, 1024));
      EXPECT_EQ(FakeStringTable::Lookup(id), "rms_norm_" + std::to_string(batch) + "x1024_f32");
    }
  }
  EXPECT_EQ(FakeStringTable::Strings().size(), 3u);
  EXPECT_EQ(cache.generic_fallbacks(), 0u);
}

TEST_F(DispatchTagCacheTest, TagId_KindOverCap_FallsBackToGenericTagAndCounts) {
  DispatchTagCache cache(&FakeStringTable::Intern, /*max_tags_per_kind=*/3);
  for (uint64_t m = 1; m <= 3; ++m) {
    EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Matmul(m, 8, 8))),
              "matmul_" + std::to_string(m) + "x8x8_f32");
  }
  const uint32_t generic = cache.TagId(OpShape::Matmul(4, 8, 8));
  EXPECT_EQ(FakeStringTable::Lookup(generic), "matmul_dyn_f32");
  EXPECT_EQ(cache.TagId(OpShape::Matmul(5, 8, 8)), generic);
  EXPECT_EQ(cache.TagId(OpShape::Matmul(4, 8, 8)), generic);
  // Shapes cached before the cap keep their own tags.
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Matmul(2, 8, 8))), "matmul_2x8x8_f32");
  EXPECT_EQ(cache.generic_fallbacks(), 3u);
  EXPECT_EQ(FakeStringTable::Strings().size(), 4u);  // 3 shapes + 1 generic
}

TEST_F(DispatchTagCacheTest, TagId_OneKindOverCap_OtherKindsKeepTheirTags) {
  DispatchTagCache cache(&FakeStringTable::Intern, /*max_tags_per_kind=*/1);
  cache.TagId(OpShape::Matmul(1, 1, 1));
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Matmul(2, 1, 1))), "matmul_dyn_f32");
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::FusedMatmulGelu(2, 1, 1))),
            "matmul_2x1x1_f32+elementwise_gelu_2_f32");
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Softmax(2, 1))), "softmax_2x1_f32");
}

TEST_F(DispatchTagCacheTest, TagId_ElementwiseOverCap_GenericTagKeepsFunction) {
  DispatchTagCache cache(&FakeStringTable::Intern, /*max_tags_per_kind=*/1);
  cache.TagId(OpShape::Elementwise(ElementwiseFn::kAdd, 1));
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Elementwise(ElementwiseFn::kGelu, 2))),
            "elementwise_gelu_dyn_f32");
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Elementwise(ElementwiseFn::kAdd, 2))),
            "elementwise_add_dyn_f32");
}

TEST_F(DispatchTagCacheTest, TagId_DefaultCap_Is256DistinctTagsPerKind) {
  DispatchTagCache cache(&FakeStringTable::Intern);
  for (uint64_t m = 1; m <= DispatchTagCache::kDefaultMaxTagsPerKind; ++m) {
    cache.TagId(OpShape::Softmax(m, 10));
  }
  EXPECT_EQ(cache.generic_fallbacks(), 0u);
  EXPECT_EQ(FakeStringTable::Lookup(cache.TagId(OpShape::Softmax(257, 10))), "softmax_dyn_f32");
  EXPECT_EQ(cache.generic_fallbacks(), 1u);
}

TEST_F(DispatchTagCacheTest, TagId_ConcurrentLookups_EachShapeInternedOnce) {
  DispatchTagCache cache(&FakeStringTable::Intern);
  constexpr int kThreads = 4;
  constexpr uint64_t kShapes = 50;
  std::vector<std::vector<uint32_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cache, &ids, t] {
      for (uint64_t m = 1; m <= kShapes; ++m)
        ids[t].push_back(cache.TagId(OpShape::Matmul(m, 2, 2)));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[t], ids[0]);
  EXPECT_EQ(FakeStringTable::Strings().size(), kShapes);
}

}  // namespace
}  // namespace optrace::kernels
