#include "live/broadcast_buffer.h"

#include <algorithm>
#include <cstring>

namespace optrace::daemon {

BroadcastBuffer::BroadcastBuffer(size_t capacity)
    : mask_(capacity - 1), slots_(std::make_unique<Slot[]>(capacity)) {}

void BroadcastBuffer::Append(const LiveRecord& record) {
  const uint64_t pos = next_++;
  claimed_.store(pos + 1, std::memory_order_relaxed);
  uint64_t words[kWords];
  std::memcpy(words, &record, sizeof record);
  Slot& slot = slots_[pos & mask_];
  // Release, each word: a reader whose acquire load sees it also sees the
  // claim above (pairs with the acquire loads in Read). Plain moves on
  // x86; unlike a fence, ThreadSanitizer understands them.
  for (size_t i = 0; i < kWords; ++i) slot.words[i].store(words[i], std::memory_order_release);
  // Seq_cst (release and more): publishes the slot written above, pairing
  // with the load in published(); seq_cst so that a waiter that announces
  // its sleep and then reads published() cannot miss it (TailHub).
  published_.store(pos + 1, std::memory_order_seq_cst);
}

BroadcastBuffer::Span BroadcastBuffer::Read(uint64_t from, LiveRecord* out, size_t max) const {
  const uint64_t end = published();
  const uint64_t cap = mask_ + 1;
  // Older than a whole ring: overwritten for sure.
  Span span{std::max(from, end > cap ? end - cap : 0), 0};
  span.count = static_cast<size_t>(std::min<uint64_t>(max, end - span.first));
  for (size_t k = 0; k < span.count; ++k) {
    const Slot& slot = slots_[(span.first + k) & mask_];
    uint64_t words[kWords];
    for (size_t i = 0; i < kWords; ++i) words[i] = slot.words[i].load(std::memory_order_acquire);
    std::memcpy(&out[k], words, sizeof words);
  }
  // After the acquire loads above: a claim of a write that our copies met
  // is seen here.
  const uint64_t claimed = claimed_.load(std::memory_order_relaxed);
  // Position q was intact iff the write of q + cap had not been claimed.
  const uint64_t torn =
      claimed > span.first + cap ? std::min<uint64_t>(span.count, claimed - cap - span.first) : 0;
  if (torn > 0) {
    std::memmove(out, out + torn, (span.count - torn) * sizeof(LiveRecord));
    span.first += torn;
    span.count -= static_cast<size_t>(torn);
  }
  return span;
}

}  // namespace optrace::daemon
