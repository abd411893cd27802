#include "kernels/dispatch_tag.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace optrace::kernels {
namespace {

TEST(DispatchTagTest, OpName_EveryKind_ReadableName) {
  EXPECT_STREQ(OpName(OpKind::kElementwise), "elementwise");
  EXPECT_STREQ(OpName(OpKind::kRmsNorm), "rms_norm");
  EXPECT_STREQ(OpName(OpKind::kSoftmax), "softmax");
  EXPECT_STREQ(OpName(OpKind::kMatmul), "matmul");
  EXPECT_STREQ(OpName(OpKind::kFusedRmsNormMatmul), "fused_rms_norm_matmul");
  EXPECT_STREQ(OpName(OpKind::kFusedMatmulGelu), "fused_matmul_gelu");
}

TEST(DispatchTagTest, Matmul_Sizes_TagIsMxNxK) {
  EXPECT_EQ(DispatchTag(OpShape::Matmul(128, 256, 512)), "matmul_128x256x512_f32");
}

TEST(DispatchTagTest, Elementwise_EachFunction_TagNamesFunctionAndCount) {
  EXPECT_EQ(DispatchTag(OpShape::Elementwise(ElementwiseFn::kGelu, 4096)),
            "elementwise_gelu_4096_f32");
  EXPECT_EQ(DispatchTag(OpShape::Elementwise(ElementwiseFn::kAdd, 7)), "elementwise_add_7_f32");
  EXPECT_EQ(DispatchTag(OpShape::Elementwise(ElementwiseFn::kMul, 1)), "elementwise_mul_1_f32");
}

TEST(DispatchTagTest, RowKernels_Sizes_TagIsRowsxCols) {
  EXPECT_EQ(DispatchTag(OpShape::RmsNorm(64, 1024)), "rms_norm_64x1024_f32");
  EXPECT_EQ(DispatchTag(OpShape::Softmax(64, 32000)), "softmax_64x32000_f32");
}

TEST(DispatchTagTest, FusedKinds_Sizes_TagNamesPartsInComputeOrder) {
  EXPECT_EQ(DispatchTag(OpShape::FusedRmsNormMatmul(64, 1024, 4096)),
            "rms_norm_64x4096_f32+matmul_64x1024x4096_f32");
  EXPECT_EQ(DispatchTag(OpShape::FusedMatmulGelu(16, 1024, 256)),
            "matmul_16x1024x256_f32+elementwise_gelu_16384_f32");
}

TEST(DispatchTagTest, FusedParts_FusedKinds_TheOpByOpShapes) {
  const std::vector<OpShape> norm = FusedParts(OpShape::FusedRmsNormMatmul(8, 16, 32));
  ASSERT_EQ(norm.size(), 2u);
  EXPECT_EQ(norm[0], OpShape::RmsNorm(8, 32));
  EXPECT_EQ(norm[1], OpShape::Matmul(8, 16, 32));
  const std::vector<OpShape> gelu = FusedParts(OpShape::FusedMatmulGelu(8, 16, 32));
  ASSERT_EQ(gelu.size(), 2u);
  EXPECT_EQ(gelu[0], OpShape::Matmul(8, 16, 32));
  EXPECT_EQ(gelu[1], OpShape::Elementwise(ElementwiseFn::kGelu, 8 * 16));
  EXPECT_TRUE(FusedParts(OpShape::Matmul(8, 16, 32)).empty());
  EXPECT_TRUE(FusedParts(OpShape::Elementwise(ElementwiseFn::kGelu, 4)).empty());
}

TEST(DispatchTagTest, DynamicSizes_ComputedAtRunTime_FilledIntoTag) {
  // A batch size known only at run time, as a serving runtime sees it.
  for (uint64_t batch : {1u, 3u, 17u, 1000u}) {
    EXPECT_EQ(DispatchTag(OpShape::Matmul(batch, 4 * 256, 256)),
              "matmul_" + std::to_string(batch) + "x1024x256_f32");
    EXPECT_EQ(DispatchTag(OpShape::Elementwise(ElementwiseFn::kAdd, batch * 256)),
              "elementwise_add_" + std::to_string(batch * 256) + "_f32");
  }
}

TEST(DispatchTagTest, HugeSizes_AllDigits_Kept) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(DispatchTag(OpShape::Softmax(kMax, 1)), "softmax_18446744073709551615x1_f32");
}

TEST(DispatchTagTest, GenericTag_EveryKind_SizesReplacedByDyn) {
  EXPECT_EQ(GenericDispatchTag(OpShape::Matmul(1, 2, 3)), "matmul_dyn_f32");
  EXPECT_EQ(GenericDispatchTag(OpShape::RmsNorm(1, 2)), "rms_norm_dyn_f32");
  EXPECT_EQ(GenericDispatchTag(OpShape::Softmax(1, 2)), "softmax_dyn_f32");
  EXPECT_EQ(GenericDispatchTag(OpShape::FusedRmsNormMatmul(1, 2, 3)),
            "rms_norm_dyn_f32+matmul_dyn_f32");
  EXPECT_EQ(GenericDispatchTag(OpShape::FusedMatmulGelu(1, 2, 3)),
            "matmul_dyn_f32+elementwise_gelu_dyn_f32");
  EXPECT_EQ(GenericDispatchTag(OpShape::Elementwise(ElementwiseFn::kGelu, 9)),
            "elementwise_gelu_dyn_f32");
}

TEST(DispatchTagTest, OpShape_SameSizesDifferentKind_NotEqual) {
  EXPECT_EQ(OpShape::Matmul(1, 2, 3), OpShape::Matmul(1, 2, 3));
  EXPECT_FALSE(OpShape::Matmul(1, 2, 3) == OpShape::FusedMatmulGelu(1, 2, 3));
  EXPECT_FALSE(OpShape::Elementwise(ElementwiseFn::kAdd, 5) ==
               OpShape::Elementwise(ElementwiseFn::kMul, 5));
}

}  // namespace
}  // namespace optrace::kernels
