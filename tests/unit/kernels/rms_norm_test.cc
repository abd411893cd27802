#include "kernels/cpu/rms_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference_kernels.h"
#include "test_shapes.h"

namespace optrace::kernels::cpu {
namespace {

using testing::AllNear;
using testing::RandomValues;

constexpr float kEps = 1e-5f;

using testing::RowsCols;

class RmsNormTest : public ::testing::TestWithParam<RowsCols> {};

TEST_P(RmsNormTest, RmsNorm_RandomRows_MatchesReference) {
  const auto [rows, cols] = GetParam();
  const std::vector<float> x = RandomValues(rows * cols, 11, -3.0f, 3.0f);
  const std::vector<float> gamma = RandomValues(cols, 12, 0.5f, 1.5f);
  std::vector<float> out(rows * cols);
  RmsNorm(x.data(), gamma.data(), kEps, out.data(), rows, cols);
  EXPECT_TRUE(AllNear(out, testing::ReferenceRmsNorm(x, gamma, kEps, rows, cols)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, RmsNormTest,
                         ::testing::Values(RowsCols{1, 1}, RowsCols{3, 1023}, RowsCols{17, 4096},
                                           RowsCols{64, 257}),
                         testing::RowsColsName);

TEST(RmsNormRowTest, RmsNorm_ConstantRow_GivesSignTimesGamma) {
  const std::vector<float> x = {-4.0f, -4.0f, -4.0f};
  const std::vector<float> gamma = {1.0f, 2.0f, 0.5f};
  std::vector<float> out(3);
  RmsNorm(x.data(), gamma.data(), 0.0f, out.data(), 1, 3);
  EXPECT_TRUE(AllNear(out, std::vector<double>{-1.0, -2.0, -0.5}));
}

TEST(RmsNormRowTest, RmsNorm_ZeroRowWithEps_StaysFiniteZero) {
  const std::vector<float> x(8, 0.0f);
  const std::vector<float> gamma(8, 1.0f);
  std::vector<float> out(8, 42.0f);
  RmsNorm(x.data(), gamma.data(), kEps, out.data(), 1, 8);
  EXPECT_EQ(out, x);
}

TEST(RmsNormRowTest, RmsNorm_OutputAliasesInput_SameAsSeparateOutput) {
  std::vector<float> x = RandomValues(5 * 77, 13);
  const std::vector<float> gamma = RandomValues(77, 14);
  std::vector<float> separate(x.size());
  RmsNorm(x.data(), gamma.data(), kEps, separate.data(), 5, 77);
  RmsNorm(x.data(), gamma.data(), kEps, x.data(), 5, 77);
  EXPECT_EQ(x, separate);
}

}  // namespace
}  // namespace optrace::kernels::cpu
