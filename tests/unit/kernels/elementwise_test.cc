#include "kernels/cpu/elementwise.h"

#include <gtest/gtest.h>

#include <vector>

#include "reference_kernels.h"

namespace optrace::kernels::cpu {
namespace {

using testing::AllNear;
using testing::RandomValues;
using testing::ReferenceGelu;

// Sizes: one element, an odd count, and one past a multiple of 4096.
class ElementwiseTest : public ::testing::TestWithParam<size_t> {};

TEST_P(ElementwiseTest, Add_RandomInputs_MatchesReference) {
  const size_t count = GetParam();
  const std::vector<float> a = RandomValues(count, 1);
  const std::vector<float> b = RandomValues(count, 2);
  std::vector<float> out(count);
  Elementwise(ElementwiseFn::kAdd, a.data(), b.data(), out.data(), count);
  std::vector<double> expected(count);
  for (size_t i = 0; i < count; ++i) expected[i] = double{a[i]} + b[i];
  EXPECT_TRUE(AllNear(out, expected));
}

TEST_P(ElementwiseTest, Mul_RandomInputs_MatchesReference) {
  const size_t count = GetParam();
  const std::vector<float> a = RandomValues(count, 3);
  const std::vector<float> b = RandomValues(count, 4);
  std::vector<float> out(count);
  Elementwise(ElementwiseFn::kMul, a.data(), b.data(), out.data(), count);
  std::vector<double> expected(count);
  for (size_t i = 0; i < count; ++i) expected[i] = double{a[i]} * b[i];
  EXPECT_TRUE(AllNear(out, expected));
}

TEST_P(ElementwiseTest, Gelu_WideRangeInputs_MatchesReference) {
  const size_t count = GetParam();
  const std::vector<float> x = RandomValues(count, 5, -8.0f, 8.0f);
  std::vector<float> out(count);
  Elementwise(ElementwiseFn::kGelu, x.data(), nullptr, out.data(), count);
  std::vector<double> expected(count);
  for (size_t i = 0; i < count; ++i) expected[i] = ReferenceGelu(x[i]);
  EXPECT_TRUE(AllNear(out, expected));
}

INSTANTIATE_TEST_SUITE_P(Counts, ElementwiseTest, ::testing::Values(1, 1001, 4097),
                         ::testing::PrintToStringParamName());

TEST(ElementwiseInPlaceTest, Add_OutputAliasesInput_SameAsSeparateOutput) {
  std::vector<float> a = RandomValues(333, 6);
  const std::vector<float> b = RandomValues(333, 7);
  std::vector<float> separate(a.size());
  Elementwise(ElementwiseFn::kAdd, a.data(), b.data(), separate.data(), a.size());
  Elementwise(ElementwiseFn::kAdd, a.data(), b.data(), a.data(), a.size());
  EXPECT_EQ(a, separate);
}

TEST(ElementwiseGeluTest, Gelu_KnownPoints_MatchTanhApproximation) {
  const std::vector<float> x = {0.0f, 1.0f, -1.0f, 3.0f, -10.0f};
  std::vector<float> out(x.size());
  Elementwise(ElementwiseFn::kGelu, x.data(), nullptr, out.data(), x.size());
  // Values of 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))).
  EXPECT_TRUE(AllNear(out, std::vector<double>{0.0, 0.841192, -0.158808, 2.996363, 0.0}));
}

}  // namespace
}  // namespace optrace::kernels::cpu
