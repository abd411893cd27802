#include "kernels/cpu/matmul.h"

#include <algorithm>

#include "kernels/gelu.h"

namespace optrace::kernels::cpu {

namespace {

// Multiplies rows [i0, i1) of `a` into columns [j0, j1) of `c`, K block by
// K block, then applies the epilogue to that block of C.
void MatmulBlock(const float* a, const float* b, float* c, MatmulShape s, MatmulEpilogue epilogue,
                 size_t i0, size_t i1, size_t j0, size_t j1) {
  for (size_t i = i0; i < i1; ++i) std::fill(c + i * s.n + j0, c + i * s.n + j1, 0.0f);
  for (size_t k0 = 0; k0 < s.k; k0 += kMatmulBlockK) {
    const size_t k1 = std::min(k0 + kMatmulBlockK, s.k);
    for (size_t i = i0; i < i1; ++i) {
      float* c_row = c + i * s.n;
      for (size_t kk = k0; kk < k1; ++kk) {
        const float a_ik = a[i * s.k + kk];
        const float* b_row = b + kk * s.n;
        for (size_t j = j0; j < j1; ++j) c_row[j] += a_ik * b_row[j];
      }
    }
  }
  if (epilogue == MatmulEpilogue::kGelu) {
    for (size_t i = i0; i < i1; ++i) {
      float* c_row = c + i * s.n;
      for (size_t j = j0; j < j1; ++j) c_row[j] = Gelu(c_row[j]);
    }
  }
}

}  // namespace

void Matmul(const float* a, const float* b, float* c, MatmulShape shape, MatmulEpilogue epilogue) {
  for (size_t i0 = 0; i0 < shape.m; i0 += kMatmulBlockM) {
    const size_t i1 = std::min(i0 + kMatmulBlockM, shape.m);
    for (size_t j0 = 0; j0 < shape.n; j0 += kMatmulBlockN) {
      MatmulBlock(a, b, c, shape, epilogue, i0, i1, j0, std::min(j0 + kMatmulBlockN, shape.n));
    }
  }
}

}  // namespace optrace::kernels::cpu
