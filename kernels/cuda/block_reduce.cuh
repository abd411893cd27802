// A block-wide reduction for the row kernels (rms_norm, softmax): one block
// of kRowThreads threads per row.
#ifndef OPTRACE_KERNELS_CUDA_BLOCK_REDUCE_CUH_
#define OPTRACE_KERNELS_CUDA_BLOCK_REDUCE_CUH_

namespace optrace::kernels::cuda {

// Threads per block of a row kernel; a power of two.
inline constexpr int kRowThreads = 256;

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Combines the `value` of every thread of the block with `op` and returns
// the result to every thread.
// REQUIRES: blockDim.x == kRowThreads; called by all threads of the block
// (it synchronises them).
template <typename Op>
__device__ float BlockReduce(float value, Op op) {
  __shared__ float scratch[kRowThreads];
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kRowThreads / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) {
      scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  const float result = scratch[0];
  // Nobody may overwrite scratch (next reduction) before all have read it.
  __syncthreads();
  return result;
}

}  // namespace optrace::kernels::cuda

#endif  // OPTRACE_KERNELS_CUDA_BLOCK_REDUCE_CUH_
