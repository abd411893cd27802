// Straightforward reference loops, in double precision, that the kernel
// tests compare against, and the comparison itself.
#ifndef OPTRACE_TESTS_UNIT_KERNELS_REFERENCE_KERNELS_H_
#define OPTRACE_TESTS_UNIT_KERNELS_REFERENCE_KERNELS_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace optrace::kernels::testing {

// The tolerance of every kernel-vs-reference comparison: an f32 kernel
// result r of a reference value e passes when
// |r - e| <= kRelTolerance * max(1, |e|) (relative for large values,
// absolute near zero, where relative error is meaningless).
inline constexpr double kRelTolerance = 1e-4;

// `count` values uniform in [lo, hi), the same for the same `seed`.
std::vector<float> RandomValues(size_t count, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// c = a * b, a M x K, b K x N, row-major.
std::vector<double> ReferenceMatmul(std::span<const float> a, std::span<const float> b, size_t m,
                                    size_t n, size_t k);

// x / sqrt(mean(x^2) + eps) * gamma, row by row.
std::vector<double> ReferenceRmsNorm(std::span<const float> x, std::span<const float> gamma,
                                     double eps, size_t rows, size_t cols);

// exp(x) / sum(exp(x)), row by row.
std::vector<double> ReferenceSoftmax(std::span<const float> x, size_t rows, size_t cols);

// GELU, tanh approximation (the function the kernels implement).
double ReferenceGelu(double x);

// Success when every actual[i] is within the tolerance of expected[i] and
// the sizes match; otherwise a failure naming the first mismatches.
::testing::AssertionResult AllNear(std::span<const float> actual, std::span<const double> expected,
                                   double rel_tolerance = kRelTolerance);

// The same, for a reference that is itself an f32 result.
::testing::AssertionResult AllNear(std::span<const float> actual, std::span<const float> expected,
                                   double rel_tolerance = kRelTolerance);

}  // namespace optrace::kernels::testing

#endif  // OPTRACE_TESTS_UNIT_KERNELS_REFERENCE_KERNELS_H_
