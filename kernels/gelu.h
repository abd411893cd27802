// GELU, written once for the CPU kernels and the CUDA kernels alike, so the
// two backends compute the same function.
#ifndef OPTRACE_KERNELS_GELU_H_
#define OPTRACE_KERNELS_GELU_H_

#include <math.h>

#ifdef __CUDACC__
#define OPTRACE_KERNELS_HOST_DEVICE __host__ __device__
#else
#define OPTRACE_KERNELS_HOST_DEVICE
#endif

namespace optrace::kernels {

// The tanh approximation of GELU that GPT-2 and most inference runtimes use:
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). Within 1e-3 of the exact
// erf form everywhere.
OPTRACE_KERNELS_HOST_DEVICE inline float Gelu(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  constexpr float kCubicCoefficient = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kCubicCoefficient * x * x * x)));
}

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_GELU_H_
