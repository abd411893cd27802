#include "kernels/cpu/fused_rms_norm_matmul.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/rms_norm.h"

namespace optrace::kernels::cpu {

void FusedRmsNormMatmul(const float* x, const float* gamma, float eps, const float* w, float* c,
                        MatmulShape shape) {
  // Grows to the largest kMatmulBlockM x K seen on this thread and is kept,
  // so steady-state calls do not allocate.
  thread_local std::vector<float> normalized_block;
  normalized_block.resize(std::max(normalized_block.size(), kMatmulBlockM * shape.k));
  for (size_t i0 = 0; i0 < shape.m; i0 += kMatmulBlockM) {
    const size_t rows = std::min(kMatmulBlockM, shape.m - i0);
    RmsNorm(x + i0 * shape.k, gamma, eps, normalized_block.data(), rows, shape.k);
    // One row block of the product: Matmul's blocking over N and K is the
    // same as in the unfused call, so every element sums in the same order.
    Matmul(normalized_block.data(), w, c + i0 * shape.n, {rows, shape.n, shape.k});
  }
}

}  // namespace optrace::kernels::cpu
