// CPU matrix multiplication, cache-blocked, with an optional fused epilogue.
#ifndef OPTRACE_KERNELS_CPU_MATMUL_H_
#define OPTRACE_KERNELS_CPU_MATMUL_H_

#include <cstddef>

#include "kernels/matmul_params.h"

namespace optrace::kernels::cpu {

// Block sizes: a block of A rows, a block of C columns and a block of K
// stay in cache while they are used. Public so that tests pick sizes that
// are not multiples of them.
inline constexpr size_t kMatmulBlockM = 32;
inline constexpr size_t kMatmulBlockN = 128;
inline constexpr size_t kMatmulBlockK = 128;

// c = epilogue(a * b): `a` is M x K, `b` is K x N, `c` is M x N, all
// row-major. The epilogue (GELU for fused_matmul_gelu) is applied to each
// block of C as soon as it is complete, while it is still in cache.
// The result of a row depends only on that row of `a`, and is the same
// whether the row is multiplied alone or with others.
// REQUIRES: the pointers hold the floats `shape` says; `c` aliases neither
// `a` nor `b`.
void Matmul(const float* a, const float* b, float* c, MatmulShape shape,
            MatmulEpilogue epilogue = MatmulEpilogue::kNone);

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_MATMUL_H_
