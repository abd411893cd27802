#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/launch_limits.cuh"

namespace optrace::kernels::cuda {

namespace {

// One block per row: the row maximum, the sum of exponentials, then the
// normalised values, as the CPU kernel computes them.
__global__ void SoftmaxKernel(const float* x, float* out, int cols) {
  const float* in_row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out_row = out + static_cast<size_t>(blockIdx.x) * cols;
  float row_max = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kRowThreads) row_max = fmaxf(row_max, in_row[c]);
  row_max = BlockReduce(row_max, MaxOp{});
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kRowThreads) sum += expf(in_row[c] - row_max);
  const float inverse_sum = 1.0f / BlockReduce(sum, SumOp{});
  for (int c = threadIdx.x; c < cols; c += kRowThreads) {
    out_row[c] = expf(in_row[c] - row_max) * inverse_sum;
  }
}

}  // namespace

cudaError_t LaunchSoftmax(const float* x, float* out, size_t rows, size_t cols,
                          cudaStream_t stream) {
  if (!FitsGridX(rows) || !FitsGridX(cols)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  SoftmaxKernel<<<static_cast<unsigned>(rows), kRowThreads, 0, stream>>>(x, out,
                                                                         static_cast<int>(cols));
  return cudaGetLastError();
}

}  // namespace optrace::kernels::cuda
