// CreateGpuBackend for builds without CUDA.
#include "kernels/gpu_backend_factory.h"

namespace optrace::kernels {

std::unique_ptr<Backend> CreateGpuBackend(int /*device*/, std::string* why_not) {
  *why_not = "this build of optrace has no CUDA support (nvcc was not found at configure time)";
  return nullptr;
}

}  // namespace optrace::kernels
