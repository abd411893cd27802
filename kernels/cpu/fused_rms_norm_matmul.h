// CPU rms_norm fused into the matmul that consumes it.
#ifndef OPTRACE_KERNELS_CPU_FUSED_RMS_NORM_MATMUL_H_
#define OPTRACE_KERNELS_CPU_FUSED_RMS_NORM_MATMUL_H_

#include <cstddef>

#include "kernels/matmul_params.h"

namespace optrace::kernels::cpu {

// c = RmsNorm(x, gamma, eps) * w, where `x` is M x K, `gamma` holds K
// floats, `w` is K x N and `c` is M x N. The normalised rows are never
// written out as a whole: they are produced kMatmulBlockM rows at a time
// into a per-thread scratch block that stays in cache while it is
// multiplied. The result equals RmsNorm followed by Matmul exactly.
// REQUIRES: as for RmsNorm and Matmul; `c` aliases no input.
// Thread-safe (the scratch block is per thread).
void FusedRmsNormMatmul(const float* x, const float* gamma, float eps, const float* w, float* c,
                        MatmulShape shape);

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_FUSED_RMS_NORM_MATMUL_H_
