#include "kernels/cpu/softmax.h"

#include <algorithm>
#include <cmath>

namespace optrace::kernels::cpu {

void Softmax(const float* x, float* out, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* in_row = x + r * cols;
    float* out_row = out + r * cols;
    const float row_max = *std::max_element(in_row, in_row + cols);
    float sum = 0.0f;
    for (size_t c = 0; c < cols; ++c) {
      out_row[c] = std::exp(in_row[c] - row_max);
      sum += out_row[c];
    }
    const float inverse_sum = 1.0f / sum;
    for (size_t c = 0; c < cols; ++c) out_row[c] *= inverse_sum;
  }
}

}  // namespace optrace::kernels::cpu
