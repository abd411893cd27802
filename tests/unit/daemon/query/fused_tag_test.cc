#include "query/fused_tag.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace optrace::daemon {
namespace {

using Parts = std::vector<std::string_view>;

TEST(FusedTagTest, TwoParts_SplitInOrder) {
  EXPECT_TRUE(IsFusedTag("matmul_16x1024x256_f32+elementwise_gelu_16384_f32"));
  EXPECT_EQ(SplitFusedTag("matmul_16x1024x256_f32+elementwise_gelu_16384_f32"),
            (Parts{"matmul_16x1024x256_f32", "elementwise_gelu_16384_f32"}));
}

TEST(FusedTagTest, PlainTag_NotFused_ItsOwnPart) {
  EXPECT_FALSE(IsFusedTag("matmul_16x1024x256_f32"));
  EXPECT_FALSE(IsFusedTag(""));
  EXPECT_EQ(SplitFusedTag("matmul_16x1024x256_f32"), (Parts{"matmul_16x1024x256_f32"}));
}

TEST(FusedTagTest, Malicious_EmptyParts_KeptForTheCallerToCount) {
  EXPECT_EQ(SplitFusedTag("+"), (Parts{"", ""}));
  EXPECT_EQ(SplitFusedTag("a++b"), (Parts{"a", "", "b"}));
  EXPECT_EQ(SplitFusedTag("+a+"), (Parts{"", "a", ""}));
}

TEST(FusedTagTest, Malicious_RepeatedAndManyParts_EveryOneKept) {
  EXPECT_EQ(SplitFusedTag("a+a"), (Parts{"a", "a"}));
  std::string tag = "p";
  for (int i = 1; i < 10000; ++i) tag += "+p";
  const Parts parts = SplitFusedTag(tag);
  ASSERT_EQ(parts.size(), 10000u);
  for (std::string_view part : parts) EXPECT_EQ(part, "p");
}

}  // namespace
}  // namespace optrace::daemon
