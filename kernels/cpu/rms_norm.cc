#include "kernels/cpu/rms_norm.h"

#include <cmath>

namespace optrace::kernels::cpu {

void RmsNorm(const float* x, const float* gamma, float eps, float* out, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* in_row = x + r * cols;
    float* out_row = out + r * cols;
    float sum_squares = 0.0f;
    for (size_t c = 0; c < cols; ++c) sum_squares += in_row[c] * in_row[c];
    const float inverse_rms = 1.0f / std::sqrt(sum_squares / static_cast<float>(cols) + eps);
    for (size_t c = 0; c < cols; ++c) out_row[c] = in_row[c] * inverse_rms * gamma[c];
  }
}

}  // namespace optrace::kernels::cpu
