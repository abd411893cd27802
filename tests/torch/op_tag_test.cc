// The tag rules of docs/pytorch.md, per op family.
#include "torch/op_tag.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::torch_ops {
namespace {

std::string Tag(std::string_view name, const std::vector<std::vector<int64_t>>& sizes,
                std::string_view dtype = "f32") {
  std::vector<TensorShape> shapes;
  for (const auto& s : sizes) shapes.push_back({std::span<const int64_t>(s)});
  char out[kMaxTagBytes];
  return std::string(out, OpTag(name, shapes, dtype, out));
}

TEST(OpTagTest, Addmm_MxKxNOfTheTwoFactors) {
  EXPECT_EQ(Tag("aten::addmm", {{2048}, {16, 512}, {512, 2048}}), "addmm_16x512x2048_f32");
}

TEST(OpTagTest, MmAndBmm_BatchThenMxKxN) {
  EXPECT_EQ(Tag("aten::mm", {{4, 8}, {8, 3}}), "mm_4x8x3_f32");
  EXPECT_EQ(Tag("aten::bmm", {{6, 4, 8}, {6, 8, 3}}), "bmm_6x4x8x3_f32");
}

TEST(OpTagTest, Linear_LeadingDimsFoldedIntoM) {
  EXPECT_EQ(Tag("aten::linear", {{2, 7, 64}, {256, 64}, {256}}), "linear_14x64x256_f32");
}

TEST(OpTagTest, Convolution_InputThenKernel) {
  EXPECT_EQ(Tag("aten::convolution", {{2, 3, 224, 224}, {64, 3, 7, 7}}),
            "convolution_2x3x224x224_k64x3x7x7_f32");
}

TEST(OpTagTest, Generic_ShapesOfAtMostThreeTensors) {
  EXPECT_EQ(Tag("aten::softmax", {{2, 4, 7, 7}}), "softmax_2x4x7x7_f32");
  EXPECT_EQ(Tag("aten::cat", {{1}, {2}, {3}, {4}}), "cat_1_2_3_f32");
  EXPECT_EQ(Tag("AddmmBackward0", {{16, 2048}}), "AddmmBackward0_16x2048_f32");
}

TEST(OpTagTest, ZeroDimTensor_WrittenAsS) {
  EXPECT_EQ(Tag("aten::mul", {{3, 5}, {}}), "mul_3x5_s_f32");
}

TEST(OpTagTest, FamilyRuleNotApplicable_Generic) {
  EXPECT_EQ(Tag("aten::mm", {{4}, {4}}), "mm_4_4_f32");
}

TEST(OpTagTest, NoTensors_NoTag) { EXPECT_EQ(Tag("aten::zeros", {}), ""); }

TEST(OpTagTest, UnknownDtype_LeftOut) { EXPECT_EQ(Tag("aten::neg", {{5}}, ""), "neg_5"); }

TEST(OpTagTest, LongTag_CutAtMaxWithTilde) {
  std::vector<int64_t> many(80, 123456);
  const std::string tag = Tag("aten::view", {many});
  EXPECT_EQ(tag.size(), kMaxTagBytes);
  EXPECT_EQ(tag.back(), '~');
}

}  // namespace
}  // namespace optrace::torch_ops
