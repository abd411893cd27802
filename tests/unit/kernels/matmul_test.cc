#include "kernels/cpu/matmul.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/elementwise.h"
#include "reference_kernels.h"
#include "test_shapes.h"

namespace optrace::kernels::cpu {
namespace {

using testing::AllNear;
using testing::RandomValues;

// Shapes below, at, and across the block sizes, most not multiples of them.
class MatmulTest : public ::testing::TestWithParam<MatmulShape> {
 protected:
  void SetUp() override {
    const MatmulShape s = GetParam();
    a_ = RandomValues(s.m * s.k, 31);
    b_ = RandomValues(s.k * s.n, 32);
  }
  std::vector<float> a_;
  std::vector<float> b_;
};

TEST_P(MatmulTest, Matmul_RandomInputs_MatchesReference) {
  const MatmulShape s = GetParam();
  std::vector<float> c(s.m * s.n, -1.0f);  // garbage the kernel must overwrite
  Matmul(a_.data(), b_.data(), c.data(), s);
  EXPECT_TRUE(AllNear(c, testing::ReferenceMatmul(a_, b_, s.m, s.n, s.k)));
}

TEST_P(MatmulTest, GeluEpilogue_RandomInputs_MatchesGeluOfReference) {
  const MatmulShape s = GetParam();
  std::vector<float> c(s.m * s.n);
  Matmul(a_.data(), b_.data(), c.data(), s, MatmulEpilogue::kGelu);
  std::vector<double> expected = testing::ReferenceMatmul(a_, b_, s.m, s.n, s.k);
  for (double& v : expected) v = testing::ReferenceGelu(v);
  EXPECT_TRUE(AllNear(c, expected));
}

TEST_P(MatmulTest, GeluEpilogue_AnyShape_EqualsMatmulThenGelu) {
  const MatmulShape s = GetParam();
  std::vector<float> fused(s.m * s.n);
  Matmul(a_.data(), b_.data(), fused.data(), s, MatmulEpilogue::kGelu);
  std::vector<float> unfused(s.m * s.n);
  Matmul(a_.data(), b_.data(), unfused.data(), s);
  Elementwise(ElementwiseFn::kGelu, unfused.data(), nullptr, unfused.data(), unfused.size());
  EXPECT_EQ(fused, unfused);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulTest,
                         ::testing::Values(MatmulShape{1, 1, 1}, MatmulShape{3, 5, 7},
                                           MatmulShape{kMatmulBlockM, kMatmulBlockN, kMatmulBlockK},
                                           MatmulShape{kMatmulBlockM + 5, kMatmulBlockN + 3,
                                                       kMatmulBlockK + 1},
                                           MatmulShape{65, 257, 300}, MatmulShape{16, 1024, 256}),
                         testing::MatmulShapeName);

TEST(MatmulIdentityTest, Matmul_ByIdentity_ReturnsInputExactly) {
  constexpr size_t kN = 130;
  const std::vector<float> a = RandomValues(9 * kN, 33);
  std::vector<float> identity(kN * kN, 0.0f);
  for (size_t i = 0; i < kN; ++i) identity[i * kN + i] = 1.0f;
  std::vector<float> c(a.size());
  Matmul(a.data(), identity.data(), c.data(), {9, kN, kN});
  EXPECT_EQ(c, a);
}

}  // namespace
}  // namespace optrace::kernels::cpu
