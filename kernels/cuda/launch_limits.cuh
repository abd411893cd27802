// Grid limits shared by the CUDA kernels' launchers.
#ifndef OPTRACE_KERNELS_CUDA_LAUNCH_LIMITS_CUH_
#define OPTRACE_KERNELS_CUDA_LAUNCH_LIMITS_CUH_

#include <climits>
#include <cstddef>

namespace optrace::kernels::cuda {

// The largest grid x dimension, and the largest y and z dimensions.
inline constexpr size_t kMaxGridX = INT_MAX;
inline constexpr size_t kMaxGridY = 65535;

// True when `value` can index a kernel's grid and be held in an int.
inline bool FitsGridX(size_t value) { return value <= kMaxGridX; }

}  // namespace optrace::kernels::cuda

#endif  // OPTRACE_KERNELS_CUDA_LAUNCH_LIMITS_CUH_
