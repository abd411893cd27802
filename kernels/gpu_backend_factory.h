// Creating the GPU backend without depending on CUDA: the demo and tests
// ask for one here, and learn why there is none when the build has no CUDA
// or the machine has no usable device.
#ifndef OPTRACE_KERNELS_GPU_BACKEND_FACTORY_H_
#define OPTRACE_KERNELS_GPU_BACKEND_FACTORY_H_

#include <memory>
#include <string>

#include "kernels/backend.h"

namespace optrace::kernels {

// A backend running ops on CUDA device `device`, or nullptr with
// `*why_not` set to one line naming the reason (built without CUDA, the
// CUDA error of the device query, no such device).
std::unique_ptr<Backend> CreateGpuBackend(int device, std::string* why_not);

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_GPU_BACKEND_FACTORY_H_
