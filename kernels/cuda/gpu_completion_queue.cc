#include "kernels/cuda/gpu_completion_queue.h"

#include <cmath>

namespace optrace::kernels::cuda {

namespace {

// Waits for `events.stop` and returns the device time between the two
// events in nanoseconds (at least 1, as 0 means "no duration" to EndOp),
// or 0 when waiting or timing fails.
uint64_t WaitAndMeasureNs(const GpuOpEvents& events) {
  if (cudaEventSynchronize(events.stop) != cudaSuccess) return 0;
  float elapsed_ms = 0.0f;
  if (cudaEventElapsedTime(&elapsed_ms, events.start, events.stop) != cudaSuccess) return 0;
  const auto ns = static_cast<uint64_t>(std::llround(static_cast<double>(elapsed_ms) * 1e6));
  return ns == 0 ? 1 : ns;
}

}  // namespace

GpuCompletionQueue::GpuCompletionQueue(int device) : device_(device), thread_([this] { Run(); }) {}

GpuCompletionQueue::~GpuCompletionQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
  for (const GpuOpEvents& events : free_events_) {
    cudaEventDestroy(events.start);
    cudaEventDestroy(events.stop);
  }
}

cudaError_t GpuCompletionQueue::AcquireEvents(GpuOpEvents* events) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_events_.empty()) {
      *events = free_events_.back();
      free_events_.pop_back();
      return cudaSuccess;
    }
  }
  // Blocking sync: the completion thread sleeps in cudaEventSynchronize
  // instead of spinning a core.
  GpuOpEvents created;
  cudaError_t err = cudaEventCreateWithFlags(&created.start, cudaEventBlockingSync);
  if (err == cudaSuccess) {
    err = cudaEventCreateWithFlags(&created.stop, cudaEventBlockingSync);
    if (err != cudaSuccess) cudaEventDestroy(created.start);
  }
  *events = err == cudaSuccess ? created : GpuOpEvents{};
  return err;
}

void GpuCompletionQueue::ReleaseEvents(GpuOpEvents events) {
  std::lock_guard<std::mutex> lock(mu_);
  free_events_.push_back(events);
}

void GpuCompletionQueue::Submit(const PendingGpuOp& op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(op);
  }
  work_cv_.notify_one();
}

void GpuCompletionQueue::WaitUntilIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return pending_.empty() && !completing_; });
}

uint64_t GpuCompletionQueue::untimed_completions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return untimed_completions_;
}

void GpuCompletionQueue::Run() {
  // The runtime's current device is per thread.
  cudaSetDevice(device_);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, and everything completed
    const PendingGpuOp op = pending_.front();
    pending_.pop_front();
    completing_ = true;
    lock.unlock();
    const uint64_t device_ns = WaitAndMeasureNs(op.events);
    optrace::EndOp(*op.site, op.op_id, op.placement, op.tag_id, device_ns);
    lock.lock();
    if (device_ns == 0) ++untimed_completions_;
    free_events_.push_back(op.events);
    completing_ = false;
    if (pending_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace optrace::kernels::cuda
