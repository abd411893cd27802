#include "attach_handshake.h"

#include <time.h>

#include "common/shared_futex.h"

namespace optrace::client {
namespace {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

bool AwaitDaemonAttach(const abi::SegmentHeader& header, uint32_t timeout_ms) {
  const uint64_t deadline = MonotonicNs() + uint64_t{timeout_ms} * 1'000'000ULL;
  while (true) {
    // Acquire pairs with the daemon's release store of attach_word, made
    // after it wrote our live level: once we see it, the level is current.
    const uint32_t word = header.attach_word.load(std::memory_order_acquire);
    if (word == abi::kAttached) return true;
    const uint64_t now = MonotonicNs();
    if (now >= deadline) return false;
    // Returns early on the daemon's wake, a signal or a changed word; the
    // loop re-checks.
    SharedFutexWait(&header.attach_word, word, deadline - now);
  }
}

}  // namespace optrace::client
