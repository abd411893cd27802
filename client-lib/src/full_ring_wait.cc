#include "full_ring_wait.h"

#include <sched.h>
#include <time.h>

#include "common/clock_now.h"

namespace optrace::client {
namespace {

// The first polls give the processor away (the daemon may need this very
// core); later ones sleep, so that a long wait costs little CPU.
constexpr unsigned kYieldingPolls = 64;
constexpr long kPollSleepNs = 20'000;
// How often a waiting thread tries to wake the daemon again, in polls.
constexpr unsigned kWakeEveryPolls = 16;

void Pause(unsigned poll) {
  if (poll < kYieldingPolls) {
    sched_yield();
    return;
  }
  const timespec pause{0, kPollSleepNs};
  nanosleep(&pause, nullptr);
}

}  // namespace

std::optional<uint64_t> WaitForRoom(detail::ThreadWriter& w, uint64_t pos, uint64_t read,
                                    abi::SegmentHeader& header, DrainWaker& waker,
                                    uint64_t timeout_ns) noexcept {
  if (header.daemon_pid.load(std::memory_order_acquire) == 0) return std::nullopt;
  if (read == w.wait_expired_at_read) return std::nullopt;
  const uint64_t start = ClockNowNs(CLOCK_MONOTONIC);
  std::optional<uint64_t> room;
  uint64_t now = start;
  for (unsigned poll = 0; now - start < timeout_ns; ++poll) {
    if (poll % kWakeEveryPolls == 0) waker.WakeIfSleeping(header);
    Pause(poll);
    // Acquire, as in the fill check: the slots below it are the daemon's no more.
    read = w.ring->read_pos.load(std::memory_order_acquire);
    now = ClockNowNs(CLOCK_MONOTONIC);
    if (pos - read <= w.mask) {
      room = read;
      break;
    }
  }
  header.full_ring_wait_ns.fetch_add(now - start, std::memory_order_relaxed);
  if (!room) {
    w.wait_expired_at_read = read;
    header.full_ring_wait_timeouts.fetch_add(1, std::memory_order_relaxed);
  }
  return room;
}

}  // namespace optrace::client
