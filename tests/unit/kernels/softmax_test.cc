#include "kernels/cpu/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "reference_kernels.h"
#include "test_shapes.h"

namespace optrace::kernels::cpu {
namespace {

using testing::AllNear;
using testing::RandomValues;

using testing::RowsCols;

class SoftmaxTest : public ::testing::TestWithParam<RowsCols> {};

TEST_P(SoftmaxTest, Softmax_RandomRows_MatchesReferenceAndSumsToOne) {
  const auto [rows, cols] = GetParam();
  const std::vector<float> x = RandomValues(rows * cols, 21, -6.0f, 6.0f);
  std::vector<float> out(rows * cols);
  Softmax(x.data(), out.data(), rows, cols);
  EXPECT_TRUE(AllNear(out, testing::ReferenceSoftmax(x, rows, cols)));
  for (size_t r = 0; r < rows; ++r) {
    const double sum = std::accumulate(out.begin() + r * cols, out.begin() + (r + 1) * cols, 0.0);
    EXPECT_NEAR(sum, 1.0, testing::kRelTolerance) << "row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SoftmaxTest,
                         ::testing::Values(RowsCols{1, 1}, RowsCols{2, 3}, RowsCols{7, 1000},
                                           RowsCols{4, 32000}),
                         testing::RowsColsName);

TEST(SoftmaxRangeTest, Softmax_HugeLogits_StaysFinite) {
  const std::vector<float> x = {1000.0f, 1001.0f, 999.0f, -1000.0f};
  std::vector<float> out(x.size());
  Softmax(x.data(), out.data(), 1, x.size());
  // exp(-1), 1, exp(-2), ~0 over their sum.
  const double sum = std::exp(-1.0) + 1.0 + std::exp(-2.0);
  EXPECT_TRUE(AllNear(
      out, std::vector<double>{std::exp(-1.0) / sum, 1.0 / sum, std::exp(-2.0) / sum, 0.0}));
}

TEST(SoftmaxRangeTest, Softmax_OutputAliasesInput_SameAsSeparateOutput) {
  std::vector<float> x = RandomValues(3 * 50, 22);
  std::vector<float> separate(x.size());
  Softmax(x.data(), separate.data(), 3, 50);
  Softmax(x.data(), x.data(), 3, 50);
  EXPECT_EQ(x, separate);
}

}  // namespace
}  // namespace optrace::kernels::cpu
