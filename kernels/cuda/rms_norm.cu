#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/launch_limits.cuh"

namespace optrace::kernels::cuda {

namespace {

// One block per row: reduce the sum of squares, then scale.
__global__ void RmsNormKernel(const float* x, const float* gamma, float eps, float* out, int cols) {
  const float* in_row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out_row = out + static_cast<size_t>(blockIdx.x) * cols;
  float sum_squares = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kRowThreads) sum_squares += in_row[c] * in_row[c];
  sum_squares = BlockReduce(sum_squares, SumOp{});
  const float inverse_rms = rsqrtf(sum_squares / static_cast<float>(cols) + eps);
  for (int c = threadIdx.x; c < cols; c += kRowThreads) {
    out_row[c] = in_row[c] * inverse_rms * gamma[c];
  }
}

}  // namespace

cudaError_t LaunchRmsNorm(const float* x, const float* gamma, float eps, float* out, size_t rows,
                          size_t cols, cudaStream_t stream) {
  if (!FitsGridX(rows) || !FitsGridX(cols)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  RmsNormKernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(x, gamma, eps, out,
                                                                         static_cast<int>(cols));
  return cudaGetLastError();
}

}  // namespace optrace::kernels::cuda
