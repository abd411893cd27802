// CPU softmax over the rows of a matrix.
#ifndef OPTRACE_KERNELS_CPU_SOFTMAX_H_
#define OPTRACE_KERNELS_CPU_SOFTMAX_H_

#include <cstddef>

namespace optrace::kernels::cpu {

// out[r][c] = exp(x[r][c] - max_r) / sum_c exp(x[r][c] - max_r) for each of
// `rows` rows of `cols` floats; subtracting the row maximum keeps exp finite
// for any finite input.
// REQUIRES: `x` and `out` hold rows * cols floats; cols > 0. `out` may
// alias `x`.
void Softmax(const float* x, float* out, size_t rows, size_t cols);

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_SOFTMAX_H_
