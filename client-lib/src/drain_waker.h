// Wakes the drain thread of the daemon attached to this process, when it
// sleeps and one of our rings has crossed its fill watermark.
#ifndef OPTRACE_CLIENT_DRAIN_WAKER_H_
#define OPTRACE_CLIENT_DRAIN_WAKER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "optrace/abi.h"

namespace optrace::client {

// One per process image. Thread-safe and never blocking: WakeIfSleeping
// runs on a producer thread's slow path (a ring past its watermark), so it
// costs a few loads, one FUTEX_WAKE when the daemon really sleeps, and once
// per daemon the mapping of that daemon's control segment (under a
// try-lock: a thread that loses the race skips that one wake).
class DrainWaker {
 public:
  explicit DrainWaker(std::string ns) : ns_(std::move(ns)) {}
  DrainWaker(const DrainWaker&) = delete;
  DrainWaker& operator=(const DrainWaker&) = delete;

  // Wakes the daemon named by `header.daemon_pid` if its drain thread
  // sleeps. Does nothing while no daemon is attached, or when the daemon's
  // control segment cannot be found or predates the wake fields (that
  // daemon drains on its own timer). Returns true when it woke the daemon.
  bool WakeIfSleeping(const abi::SegmentHeader& header) noexcept;

  // Wake-ups sent so far (the FUTEX_WAKE calls), for tests and benchmarks.
  uint64_t wakes_sent() const { return wakes_sent_.load(std::memory_order_relaxed); }

 private:
  const std::string ns_;
  std::mutex link_mu_;  // serialises linking a new daemon; only ever try-locked
  // The daemon whose control block is linked, and that block (nullptr: none
  // usable). Mappings are never unmapped: another thread may still read one.
  std::atomic<uint32_t> linked_pid_{0};
  std::atomic<const abi::ControlBlock*> block_{nullptr};
  std::atomic<uint64_t> wakes_sent_{0};
};

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_DRAIN_WAKER_H_
