// The parameters every matmul-family kernel (CPU and CUDA) shares.
#ifndef OPTRACE_KERNELS_MATMUL_PARAMS_H_
#define OPTRACE_KERNELS_MATMUL_PARAMS_H_

#include <cstddef>
#include <cstdint>

namespace optrace::kernels {

// C (M x N) = A (M x K) * B (K x N), all row-major.
struct MatmulShape {
  size_t m = 0;
  size_t n = 0;
  size_t k = 0;
};

// What a matmul applies to each output element before storing it: the
// fusion that saves writing C and reading it back for a separate op.
enum class MatmulEpilogue : uint8_t { kNone, kGelu };

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_MATMUL_PARAMS_H_
