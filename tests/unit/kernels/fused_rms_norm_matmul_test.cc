#include "kernels/cpu/fused_rms_norm_matmul.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/rms_norm.h"
#include "reference_kernels.h"
#include "test_shapes.h"

namespace optrace::kernels::cpu {
namespace {

using testing::AllNear;
using testing::RandomValues;

constexpr float kEps = 1e-5f;

class FusedRmsNormMatmulTest : public ::testing::TestWithParam<MatmulShape> {
 protected:
  void SetUp() override {
    const MatmulShape s = GetParam();
    x_ = RandomValues(s.m * s.k, 41, -2.0f, 2.0f);
    gamma_ = RandomValues(s.k, 42, 0.5f, 1.5f);
    w_ = RandomValues(s.k * s.n, 43);
  }
  std::vector<float> x_;
  std::vector<float> gamma_;
  std::vector<float> w_;
};

TEST_P(FusedRmsNormMatmulTest, Fused_RandomInputs_MatchesReference) {
  const MatmulShape s = GetParam();
  std::vector<float> c(s.m * s.n);
  FusedRmsNormMatmul(x_.data(), gamma_.data(), kEps, w_.data(), c.data(), s);
  const std::vector<double> normed = testing::ReferenceRmsNorm(x_, gamma_, kEps, s.m, s.k);
  const std::vector<float> normed_f32(normed.begin(), normed.end());
  EXPECT_TRUE(AllNear(c, testing::ReferenceMatmul(normed_f32, w_, s.m, s.n, s.k)));
}

TEST_P(FusedRmsNormMatmulTest, Fused_AnyShape_EqualsRmsNormThenMatmul) {
  const MatmulShape s = GetParam();
  std::vector<float> fused(s.m * s.n);
  FusedRmsNormMatmul(x_.data(), gamma_.data(), kEps, w_.data(), fused.data(), s);
  std::vector<float> normed(s.m * s.k);
  RmsNorm(x_.data(), gamma_.data(), kEps, normed.data(), s.m, s.k);
  std::vector<float> unfused(s.m * s.n);
  Matmul(normed.data(), w_.data(), unfused.data(), s);
  EXPECT_EQ(fused, unfused);
}

// Row counts below, at and across kMatmulBlockM (the fused row block).
INSTANTIATE_TEST_SUITE_P(Shapes, FusedRmsNormMatmulTest,
                         ::testing::Values(MatmulShape{1, 1, 1}, MatmulShape{5, 9, 3},
                                           MatmulShape{kMatmulBlockM, 64, 100},
                                           MatmulShape{2 * kMatmulBlockM + 1, kMatmulBlockN + 7,
                                                       kMatmulBlockK + 9},
                                           MatmulShape{16, 512, 256}),
                         testing::MatmulShapeName);

TEST(FusedRmsNormMatmulShrinkTest, Fused_SmallerKAfterLargerK_StillCorrect) {
  // The per-thread scratch block keeps its largest size; a later, smaller
  // problem must still only read its own rows.
  for (const MatmulShape s : {MatmulShape{40, 8, 300}, MatmulShape{40, 8, 7}}) {
    const std::vector<float> x = RandomValues(s.m * s.k, 44);
    const std::vector<float> gamma(s.k, 1.0f);
    const std::vector<float> w = RandomValues(s.k * s.n, 45);
    std::vector<float> c(s.m * s.n);
    FusedRmsNormMatmul(x.data(), gamma.data(), kEps, w.data(), c.data(), s);
    const std::vector<double> normed = testing::ReferenceRmsNorm(x, gamma, kEps, s.m, s.k);
    const std::vector<float> normed_f32(normed.begin(), normed.end());
    EXPECT_TRUE(AllNear(c, testing::ReferenceMatmul(normed_f32, w, s.m, s.n, s.k))) << "k=" << s.k;
  }
}

}  // namespace
}  // namespace optrace::kernels::cpu
