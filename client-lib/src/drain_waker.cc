#include "drain_waker.h"

#include "common/shared_futex.h"
#include "daemon_control.h"

namespace optrace::client {

bool DrainWaker::WakeIfSleeping(const abi::SegmentHeader& header) noexcept {
  // Acquire pairs with the daemon's release store of daemon_pid at attach.
  const uint32_t daemon = header.daemon_pid.load(std::memory_order_acquire);
  if (daemon == 0) return false;
  // Acquire pairs with the release stores below: a thread that sees the
  // pid also sees the block linked for it.
  if (linked_pid_.load(std::memory_order_acquire) != daemon) {
    std::unique_lock<std::mutex> lock(link_mu_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    if (linked_pid_.load(std::memory_order_relaxed) != daemon) {
      block_.store(MapWakeBlockOf(ns_, daemon), std::memory_order_release);
      linked_pid_.store(daemon, std::memory_order_release);
    }
  }
  const abi::ControlBlock* block = block_.load(std::memory_order_acquire);
  if (block == nullptr) return false;
  // Relaxed: a stale "awake" only delays the wake to the next check of this
  // ring (a few hundred events later) or the daemon's own timer.
  if (block->drain_sleeping.load(std::memory_order_relaxed) == 0) return false;
  if (SharedFutexWake(&block->wake_word, 1) < 0) return false;
  wakes_sent_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace optrace::client
