// The CPU backend: ops run synchronously on the calling thread, each traced
// as a scoped op on target cpu:0.
#ifndef OPTRACE_KERNELS_CPU_CPU_BACKEND_H_
#define OPTRACE_KERNELS_CPU_CPU_BACKEND_H_

#include <memory>
#include <vector>

#include "kernels/backend.h"

namespace optrace::kernels::cpu {

// Runs every op with the CPU kernels of kernels/cpu. Tensors live in host
// memory owned by the backend. An op's LAUNCH and COMPLETE are recorded on
// the dispatching thread around the kernel, so the op's span is its run
// time. Never throws beyond Backend's shape checks and std::bad_alloc.
class CpuBackend final : public Backend {
 public:
  CpuBackend() = default;

  Tensor Allocate(size_t rows, size_t cols) override;
  void Synchronize() override {}

 protected:
  void CopyIn(const float* host, float* dst, size_t count) override;
  void CopyOut(const float* src, float* host, size_t count) override;
  void Execute(const OpCall& call, optrace::OpSite& site, uint32_t tag_id) override;

 private:
  std::vector<std::unique_ptr<float[]>> allocations_;
};

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_CPU_BACKEND_H_
