// Host entry points of the CUDA kernels: each enqueues one op's kernel on a
// stream. Plain C++ (no CUDA syntax), so host code built by the C++
// compiler can call them.
#ifndef OPTRACE_KERNELS_CUDA_CUDA_KERNELS_H_
#define OPTRACE_KERNELS_CUDA_CUDA_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/dispatch_tag.h"
#include "kernels/matmul_params.h"

namespace optrace::kernels::cuda {

// Each function computes what the CPU kernel of the same name computes
// (kernels/cpu), on device pointers, asynchronously on `stream`. It returns
// cudaSuccess once the kernel is enqueued, the launch error otherwise, and
// cudaErrorInvalidValue, enqueuing nothing, when a size exceeds what the
// kernel's grid can cover (a row or column count above 2^31 - 1, or more
// than 1,048,560 matmul rows).
// REQUIRES: the pointers are device memory of the current device holding
// the floats the sizes say; aliasing as for the CPU kernel.

cudaError_t LaunchElementwise(ElementwiseFn fn, const float* a, const float* b, float* out,
                              size_t count, cudaStream_t stream);

cudaError_t LaunchRmsNorm(const float* x, const float* gamma, float eps, float* out, size_t rows,
                          size_t cols, cudaStream_t stream);

cudaError_t LaunchSoftmax(const float* x, float* out, size_t rows, size_t cols,
                          cudaStream_t stream);

// A tiled shared-memory matmul with an optional epilogue (fused_matmul_gelu).
cudaError_t LaunchMatmul(const float* a, const float* b, float* c, MatmulShape shape,
                         MatmulEpilogue epilogue, cudaStream_t stream);

// The same tiled matmul, normalising the rows of `x` as it loads them.
cudaError_t LaunchFusedRmsNormMatmul(const float* x, const float* gamma, float eps, const float* w,
                                     float* c, MatmulShape shape, cudaStream_t stream);

}  // namespace optrace::kernels::cuda

#endif  // OPTRACE_KERNELS_CUDA_CUDA_KERNELS_H_
