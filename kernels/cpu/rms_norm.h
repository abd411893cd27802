// CPU RMS normalisation of the rows of a matrix.
#ifndef OPTRACE_KERNELS_CPU_RMS_NORM_H_
#define OPTRACE_KERNELS_CPU_RMS_NORM_H_

#include <cstddef>

namespace optrace::kernels::cpu {

// out[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * gamma[c], for each
// of `rows` rows of `cols` floats.
// REQUIRES: `x` and `out` hold rows * cols floats, `gamma` holds `cols`;
// cols > 0; eps >= 0. `out` may alias `x`.
void RmsNorm(const float* x, const float* gamma, float eps, float* out, size_t rows, size_t cols);

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_RMS_NORM_H_
