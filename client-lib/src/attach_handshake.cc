#include "attach_handshake.h"

#include "common/clock_now.h"
#include "common/shared_futex.h"

namespace optrace::client {

bool AwaitDaemonAttach(const abi::SegmentHeader& header, uint32_t timeout_ms) {
  const uint64_t deadline = ClockNowNs(CLOCK_MONOTONIC) + uint64_t{timeout_ms} * 1'000'000ULL;
  while (true) {
    // Acquire pairs with the daemon's release store of attach_word, made
    // after it wrote our live level: once we see it, the level is current.
    const uint32_t word = header.attach_word.load(std::memory_order_acquire);
    if (word == abi::kAttached) return true;
    const uint64_t now = ClockNowNs(CLOCK_MONOTONIC);
    if (now >= deadline) return false;
    // Returns early on the daemon's wake, a signal or a changed word; the
    // loop re-checks.
    SharedFutexWait(&header.attach_word, word, deadline - now);
  }
}

}  // namespace optrace::client
