#include "query/fusion_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::daemon {
namespace {

// A tag with `a` spans totalling `a_ns` in A and `b` totalling `b_ns` in B.
TagSides Tag(std::string tag, std::string name, uint64_t a, uint64_t a_ns, uint64_t b,
             uint64_t b_ns) {
  TagSides t;
  t.tag = std::move(tag);
  t.name[0] = a > 0 ? name : "";
  t.name[1] = b > 0 ? name : "";
  t.side[0] = {a, a, a_ns};
  t.side[1] = {b, b, b_ns};
  return t;
}

TEST(FusionMapTest, FusedOpOfB_MapsToItsPartsInA) {
  const std::vector<TagSides> tags = {
      Tag("mm", "matmul", 8, 800, 0, 0),
      Tag("gelu", "elementwise", 8, 80, 0, 0),
      Tag("add", "elementwise", 8, 40, 8, 44),
      Tag("mm+gelu", "fused_matmul_gelu", 0, 0, 8, 700),
  };
  const FusionMap map = MapFusions(tags);
  ASSERT_EQ(map.fusions.size(), 1u);
  const v1::Fusion& f = map.fusions[0];
  EXPECT_EQ(f.name(), "fused_matmul_gelu");
  EXPECT_EQ(f.tag(), "mm+gelu");
  ASSERT_EQ(f.parts_size(), 2);
  EXPECT_EQ(f.parts(0).tag(), "mm");
  EXPECT_EQ(f.parts(0).name(), "matmul");
  EXPECT_EQ(f.parts(0).count_a(), 8u);
  EXPECT_EQ(f.parts(0).total_a_ns(), 800u);
  EXPECT_EQ(f.parts(1).tag(), "gelu");
  EXPECT_EQ(f.parts(1).total_a_ns(), 80u);
  EXPECT_EQ(f.count_b(), 8u);
  EXPECT_EQ(f.total_b_ns(), 700u);
  EXPECT_EQ(f.group_count_a(), 16u);
  EXPECT_EQ(f.group_total_a_ns(), 880u);
  EXPECT_EQ(f.group_count_b(), 8u);
  EXPECT_EQ(f.group_total_b_ns(), 700u);
  EXPECT_EQ(f.total_change_ns(), -180);
  EXPECT_DOUBLE_EQ(f.total_ratio(), 700.0 / 880.0);
  EXPECT_EQ(f.ops_saved(), 8);
  EXPECT_EQ(f.part_count(), 2u);
  EXPECT_EQ(f.parts_missing_in_a(), 0u);
  EXPECT_FALSE(f.shares_parts());
  EXPECT_EQ(map.involved, (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(map.fused_total_ns[0], 880u);
  EXPECT_EQ(map.fused_total_ns[1], 700u);
}

TEST(FusionMapTest, PartStillRunInB_InTheGroupOnBothSides) {
  // B fuses one of five rms_norms into the head; four still run alone.
  const std::vector<TagSides> tags = {
      Tag("norm", "rms_norm", 5, 50, 4, 40),
      Tag("head", "matmul", 1, 100, 0, 0),
      Tag("norm+head", "fused_rms_norm_matmul", 0, 0, 1, 90),
  };
  const v1::Fusion f = MapFusions(tags).fusions.at(0);
  EXPECT_EQ(f.parts(0).count_b(), 4u);
  EXPECT_EQ(f.parts(0).total_b_ns(), 40u);
  EXPECT_EQ(f.group_count_a(), 6u);
  EXPECT_EQ(f.group_count_b(), 5u);
  EXPECT_EQ(f.group_total_b_ns(), 130u);
  EXPECT_EQ(f.ops_saved(), 1);
}

TEST(FusionMapTest, PartNotInA_ReportedMissing) {
  const std::vector<TagSides> tags = {
      Tag("x", "x", 3, 30, 0, 0),
      Tag("x+ghost", "fused", 0, 0, 2, 20),
  };
  const v1::Fusion f = MapFusions(tags).fusions.at(0);
  ASSERT_EQ(f.parts_size(), 2);
  EXPECT_FALSE(f.parts(0).missing_in_a());
  EXPECT_TRUE(f.parts(1).missing_in_a());
  EXPECT_EQ(f.parts(1).count_a(), 0u);
  EXPECT_EQ(f.parts(1).name(), "");
  EXPECT_EQ(f.parts_missing_in_a(), 1u);
  EXPECT_EQ(f.group_total_a_ns(), 30u);
}

TEST(FusionMapTest, PartOfTwoFusions_FlaggedInBoth_CountedOnceInTotals) {
  const std::vector<TagSides> tags = {
      Tag("norm", "rms_norm", 4, 40, 0, 0), Tag("mm1", "matmul", 2, 200, 0, 0),
      Tag("mm2", "matmul", 2, 300, 0, 0),   Tag("norm+mm1", "f1", 0, 0, 2, 150),
      Tag("norm+mm2", "f2", 0, 0, 2, 250),
  };
  const FusionMap map = MapFusions(tags);
  ASSERT_EQ(map.fusions.size(), 2u);
  for (const v1::Fusion& f : map.fusions) {
    EXPECT_TRUE(f.shares_parts()) << f.tag();
    EXPECT_TRUE(f.parts(0).shared()) << f.tag();
    EXPECT_FALSE(f.parts(1).shared()) << f.tag();
    EXPECT_EQ(f.parts(0).total_a_ns(), 40u);  // shown under both
  }
  // Each span once: 40 + 200 + 300 in A, 150 + 250 in B.
  EXPECT_EQ(map.fused_total_ns[0], 540u);
  EXPECT_EQ(map.fused_total_ns[1], 400u);
}

TEST(FusionMapTest, FusedTagAlsoInA_ItsSpansInTheGroup) {
  const std::vector<TagSides> tags = {
      Tag("a+b", "fused", 3, 30, 3, 33),
  };
  const FusionMap map = MapFusions(tags);
  const v1::Fusion& f = map.fusions.at(0);
  EXPECT_EQ(f.fused_count_a(), 3u);
  EXPECT_EQ(f.fused_total_a_ns(), 30u);
  EXPECT_EQ(f.group_count_a(), 3u);
  EXPECT_EQ(f.group_total_b_ns(), 33u);
  EXPECT_EQ(f.ops_saved(), 0);
  EXPECT_EQ(f.parts_missing_in_a(), 2u);
  EXPECT_EQ(map.fused_total_ns[0], 30u);
}

TEST(FusionMapTest, FusedTagOnlyInA_NoFusion) {
  const std::vector<TagSides> tags = {Tag("a+b", "fused", 3, 30, 0, 0)};
  const FusionMap map = MapFusions(tags);
  EXPECT_TRUE(map.fusions.empty());
  EXPECT_EQ(map.involved, std::vector<bool>{false});
}

TEST(FusionMapTest, Malicious_EmptyParts_ListedCountedMatchNothing) {
  // An untagged span has tag "": an empty part must not claim it.
  const std::vector<TagSides> tags = {
      Tag("", "untagged", 5, 50, 5, 50),
      Tag("a", "a", 1, 10, 0, 0),
      Tag("+a++", "bad", 0, 0, 1, 5),
  };
  const FusionMap map = MapFusions(tags);
  const v1::Fusion& f = map.fusions.at(0);
  EXPECT_EQ(f.part_count(), 4u);
  EXPECT_EQ(f.empty_parts(), 3u);
  ASSERT_EQ(f.parts_size(), 4);
  EXPECT_TRUE(f.parts(0).empty());
  EXPECT_FALSE(f.parts(0).missing_in_a());
  EXPECT_EQ(f.parts(0).count_a(), 0u);
  EXPECT_EQ(f.parts(1).tag(), "a");
  EXPECT_EQ(f.group_count_a(), 1u);
  EXPECT_FALSE(map.involved[0]);
}

TEST(FusionMapTest, Malicious_RepeatedPart_ListedFlaggedCountedOnce) {
  const std::vector<TagSides> tags = {
      Tag("mm", "matmul", 2, 20, 0, 0),
      Tag("mm+mm", "fused", 0, 0, 1, 15),
  };
  const v1::Fusion f = MapFusions(tags).fusions.at(0);
  ASSERT_EQ(f.parts_size(), 2);
  EXPECT_FALSE(f.parts(0).repeated());
  EXPECT_TRUE(f.parts(1).repeated());
  EXPECT_EQ(f.parts(1).count_a(), 2u);  // shown as data
  EXPECT_FALSE(f.parts(0).shared()) << "repeated in one tag is not shared";
  EXPECT_EQ(f.group_count_a(), 2u);
  EXPECT_EQ(f.group_total_a_ns(), 20u);
}

TEST(FusionMapTest, Malicious_TenThousandParts_FirstListedAllCounted) {
  std::vector<TagSides> tags;
  std::string fused;
  uint64_t expected_a = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::string part = "p" + std::to_string(i);
    fused += (i == 0 ? "" : "+") + part;
    if (i % 2 == 0) {  // half of the parts ran in A
      tags.push_back(Tag(part, "op", 1, static_cast<uint64_t>(i), 0, 0));
      expected_a += static_cast<uint64_t>(i);
    }
  }
  tags.push_back(Tag(fused, "huge", 0, 0, 1, 1));
  const v1::Fusion f = MapFusions(tags).fusions.at(0);
  EXPECT_EQ(f.part_count(), 10000u);
  EXPECT_EQ(f.parts_size(), static_cast<int>(kMaxListedFusionParts));
  EXPECT_EQ(f.parts_not_listed(), 10000u - kMaxListedFusionParts);
  EXPECT_EQ(f.parts_missing_in_a(), 5000u);
  EXPECT_EQ(f.group_count_a(), 5000u);
  EXPECT_EQ(f.group_total_a_ns(), expected_a);
}

TEST(FusionMapTest, Fusions_ByAbsoluteChange_TiesByTag) {
  const std::vector<TagSides> tags = {
      Tag("a", "a", 1, 100, 0, 0),   Tag("b", "b", 1, 100, 0, 0),
      Tag("c", "c", 1, 100, 0, 0),   Tag("a+a", "f", 0, 0, 1, 90),   // -10
      Tag("b+b", "g", 0, 0, 1, 150), Tag("c+c", "h", 0, 0, 1, 110),  // +50, +10
  };
  const FusionMap map = MapFusions(tags);
  ASSERT_EQ(map.fusions.size(), 3u);
  EXPECT_EQ(map.fusions[0].tag(), "b+b");
  EXPECT_EQ(map.fusions[1].tag(), "a+a");
  EXPECT_EQ(map.fusions[2].tag(), "c+c");
}

}  // namespace
}  // namespace optrace::daemon
