// The CUDA backend: ops are enqueued on one stream of one device; each is
// traced LAUNCH at enqueue time and COMPLETE, with its device duration, once
// the device has finished it.
#ifndef OPTRACE_KERNELS_CUDA_GPU_BACKEND_H_
#define OPTRACE_KERNELS_CUDA_GPU_BACKEND_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cuda/gpu_completion_queue.h"

namespace optrace::kernels::cuda {

// Runs every op with the CUDA kernels on its own non-blocking stream.
// Tracing: the LAUNCH is recorded on the dispatching thread when the op is
// enqueued, so the span between it and the next op's LAUNCH is the host's
// enqueue cost; CUDA events recorded around the kernels let the completion
// queue record the COMPLETE with the device-measured duration. While ops
// are not traced no events are recorded at all.
// Failures: CUDA errors (allocation, copies, launches) throw
// std::runtime_error naming the call and the CUDA error; an op whose
// launch failed is completed at once, without a duration.
// REQUIRES: ops are dispatched from one thread on which the backend's
// device is current (the creating thread is).
class GpuBackend final : public Backend {
 public:
  // Stream id that ops carry in their placement. The backend's streams are
  // numbered from 1; 0 would be CUDA's legacy default stream, never used.
  static constexpr uint32_t kStreamId = 1;

  // A backend on `device` (made current on the calling thread), or
  // nullptr with `*why_not` set when there is no such usable device.
  static std::unique_ptr<GpuBackend> Create(int device, std::string* why_not);

  // Waits for the stream, completes every traced op, frees device memory.
  ~GpuBackend() override;

  Tensor Allocate(size_t rows, size_t cols) override;
  void Synchronize() override;

  // Ops completed without a device duration (see GpuCompletionQueue).
  uint64_t untimed_completions() const { return completions_.untimed_completions(); }

 protected:
  void CopyIn(const float* host, float* dst, size_t count) override;
  void CopyOut(const float* src, float* host, size_t count) override;
  void Execute(const OpCall& call, optrace::OpSite& site, uint32_t tag_id) override;

 private:
  struct StreamDestroyer {
    void operator()(cudaStream_t stream) const { cudaStreamDestroy(stream); }
  };
  struct DeviceFree {
    void operator()(float* memory) const { cudaFree(memory); }
  };

  GpuBackend(int device, cudaStream_t stream);

  const int device_;
  // Destroyed in reverse order: completions first (they wait on events in
  // the stream), then device memory, then the stream.
  std::unique_ptr<CUstream_st, StreamDestroyer> stream_;
  std::vector<std::unique_ptr<float, DeviceFree>> allocations_;
  GpuCompletionQueue completions_;
};

}  // namespace optrace::kernels::cuda

#endif  // OPTRACE_KERNELS_CUDA_GPU_BACKEND_H_
