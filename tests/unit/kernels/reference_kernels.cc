#include "reference_kernels.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace optrace::kernels::testing {

std::vector<float> RandomValues(size_t count, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

std::vector<double> ReferenceMatmul(std::span<const float> a, std::span<const float> b, size_t m,
                                    size_t n, size_t k) {
  std::vector<double> c(m * n, 0.0);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (size_t kk = 0; kk < k; ++kk) sum += double{a[i * k + kk]} * double{b[kk * n + j]};
      c[i * n + j] = sum;
    }
  }
  return c;
}

std::vector<double> ReferenceRmsNorm(std::span<const float> x, std::span<const float> gamma,
                                     double eps, size_t rows, size_t cols) {
  std::vector<double> out(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    double sum_squares = 0.0;
    for (size_t c = 0; c < cols; ++c) sum_squares += double{x[r * cols + c]} * x[r * cols + c];
    const double rms = std::sqrt(sum_squares / static_cast<double>(cols) + eps);
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = x[r * cols + c] / rms * gamma[c];
  }
  return out;
}

std::vector<double> ReferenceSoftmax(std::span<const float> x, size_t rows, size_t cols) {
  std::vector<double> out(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    const double row_max = *std::max_element(row, row + cols);
    double sum = 0.0;
    for (size_t c = 0; c < cols; ++c) sum += std::exp(row[c] - row_max);
    for (size_t c = 0; c < cols; ++c) out[r * cols + c] = std::exp(row[c] - row_max) / sum;
  }
  return out;
}

double ReferenceGelu(double x) {
  const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

namespace {

template <typename Expected>
::testing::AssertionResult AllNearImpl(std::span<const float> actual,
                                       std::span<const Expected> expected, double rel_tolerance) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " results, " << expected.size() << " expected";
  }
  constexpr int kMaxReported = 5;
  int mismatches = 0;
  auto failure = ::testing::AssertionFailure();
  for (size_t i = 0; i < actual.size(); ++i) {
    const double e = expected[i];
    const double limit = rel_tolerance * std::max(1.0, std::abs(e));
    if (std::abs(actual[i] - e) <= limit) continue;  // NaN fails here too
    if (mismatches++ < kMaxReported) {
      failure << "\n  [" << i << "] " << actual[i] << " vs expected " << e << " (limit " << limit
              << ")";
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return failure << "\n  " << mismatches << " of " << actual.size() << " values out of tolerance";
}

}  // namespace

::testing::AssertionResult AllNear(std::span<const float> actual, std::span<const double> expected,
                                   double rel_tolerance) {
  return AllNearImpl(actual, expected, rel_tolerance);
}

::testing::AssertionResult AllNear(std::span<const float> actual, std::span<const float> expected,
                                   double rel_tolerance) {
  return AllNearImpl(actual, expected, rel_tolerance);
}

}  // namespace optrace::kernels::testing
