// The completion side of GPU ops: a thread that waits for the CUDA events
// recorded around each op's kernels and then records the op's COMPLETE with
// the device-measured duration.
#ifndef OPTRACE_KERNELS_CUDA_GPU_COMPLETION_QUEUE_H_
#define OPTRACE_KERNELS_CUDA_GPU_COMPLETION_QUEUE_H_

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "optrace/optrace.hpp"

namespace optrace::kernels::cuda {

// The two events recorded on a stream around one op's kernels.
struct GpuOpEvents {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

// An op enqueued on a stream whose COMPLETE is still to be recorded.
struct PendingGpuOp {
  optrace::OpSite* site = nullptr;  // borrowed; outlives the queue
  uint64_t op_id = 0;
  optrace::Placement placement;
  uint32_t tag_id = 0;
  GpuOpEvents events;
};

// Completes GPU ops in submission order on its own thread, so the
// dispatching thread never waits for the device: for each op it waits on
// the stop event (the thread sleeps, the events use blocking sync), reads
// the elapsed time between start and stop, and calls optrace::EndOp with
// it. When waiting or timing fails (a faulted kernel, a lost device) the op
// is still completed, without a duration, and counted in
// untimed_completions(). Event pairs are pooled and reused.
// Thread-safe.
class GpuCompletionQueue {
 public:
  // Starts the completion thread; it makes `device` its current device.
  explicit GpuCompletionQueue(int device);

  // Completes every op submitted so far, stops the thread and destroys
  // the pooled events.
  ~GpuCompletionQueue();

  GpuCompletionQueue(const GpuCompletionQueue&) = delete;
  GpuCompletionQueue& operator=(const GpuCompletionQueue&) = delete;

  // Fills `events` with a pair of timing events, pooled or new. Returns the
  // CUDA error when new events cannot be created; `events` is then empty.
  // REQUIRES: the queue's device is current on the calling thread.
  cudaError_t AcquireEvents(GpuOpEvents* events);

  // Returns events that were acquired but not submitted to the pool.
  void ReleaseEvents(GpuOpEvents events);

  // Hands `op` to the completion thread.
  // REQUIRES: op.events came from AcquireEvents and were recorded on the
  // op's stream, start before its kernels and stop after them.
  void Submit(const PendingGpuOp& op);

  // Blocks until every op submitted before the call has been completed.
  void WaitUntilIdle();

  // Ops completed without a device duration because waiting on or timing
  // their events failed.
  uint64_t untimed_completions() const;

 private:
  // The completion thread's loop; returns once stopping and drained.
  void Run();

  const int device_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;       // Submit and stop wake the thread
  std::condition_variable idle_cv_;       // the thread drained the queue
  std::deque<PendingGpuOp> pending_;      // GUARDED_BY(mu_)
  bool completing_ = false;               // GUARDED_BY(mu_); an op is out of pending_
  bool stopping_ = false;                 // GUARDED_BY(mu_)
  std::vector<GpuOpEvents> free_events_;  // GUARDED_BY(mu_)
  uint64_t untimed_completions_ = 0;      // GUARDED_BY(mu_)
  // Last: the thread starts once everything above is constructed.
  std::thread thread_;
};

}  // namespace optrace::kernels::cuda

#endif  // OPTRACE_KERNELS_CUDA_GPU_COMPLETION_QUEUE_H_
