#include <algorithm>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/gelu.h"

namespace optrace::kernels::cuda {

namespace {

constexpr int kThreads = 256;
// Enough blocks to fill any current GPU; a grid-stride loop covers the rest.
constexpr size_t kMaxBlocks = 4096;

template <ElementwiseFn kFn>
__global__ void ElementwiseKernel(const float* a, const float* b, float* out, size_t count) {
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    if constexpr (kFn == ElementwiseFn::kAdd) {
      out[i] = a[i] + b[i];
    } else if constexpr (kFn == ElementwiseFn::kMul) {
      out[i] = a[i] * b[i];
    } else {
      out[i] = Gelu(a[i]);
    }
  }
}

}  // namespace

cudaError_t LaunchElementwise(ElementwiseFn fn, const float* a, const float* b, float* out,
                              size_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const auto blocks =
      static_cast<unsigned>(std::min((count + kThreads - 1) / kThreads, kMaxBlocks));
  switch (fn) {
    case ElementwiseFn::kAdd:
      ElementwiseKernel<ElementwiseFn::kAdd><<<blocks, kThreads, 0, stream>>>(a, b, out, count);
      break;
    case ElementwiseFn::kMul:
      ElementwiseKernel<ElementwiseFn::kMul><<<blocks, kThreads, 0, stream>>>(a, b, out, count);
      break;
    case ElementwiseFn::kGelu:
      ElementwiseKernel<ElementwiseFn::kGelu><<<blocks, kThreads, 0, stream>>>(a, b, out, count);
      break;
  }
  return cudaGetLastError();
}

}  // namespace optrace::kernels::cuda
