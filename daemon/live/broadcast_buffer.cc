#include "live/broadcast_buffer.h"

#include <algorithm>
#include <cstring>

namespace optrace::daemon {

BroadcastBuffer::BroadcastBuffer(size_t capacity)
    : mask_(capacity - 1), slots_(std::make_unique<Slot[]>(capacity)) {}

void BroadcastBuffer::Append(const LiveRecord& record) {
  const uint64_t pos = next_++;
  claimed_.store(pos + 1, std::memory_order_relaxed);
  // Release fence: the claim above is visible to any reader whose copy
  // sees one of the words stored below. Pairs with the acquire fence in
  // Read before it loads claimed_.
  std::atomic_thread_fence(std::memory_order_release);
  uint64_t words[kWords];
  std::memcpy(words, &record, sizeof record);
  Slot& slot = slots_[pos & mask_];
  for (size_t i = 0; i < kWords; ++i) slot.words[i].store(words[i], std::memory_order_relaxed);
  // Release: publishes the slot written above. Pairs with the acquire load
  // in published() that Read starts with.
  published_.store(pos + 1, std::memory_order_release);
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
    for (size_t i = 0; i < kWords; ++i) words[i] = slot.words[i].load(std::memory_order_relaxed);
    std::memcpy(&out[k], words, sizeof words);
  }
  // Acquire fence: pairs with the release fence in Append, so a claim of a
  // write that our copies may have met is seen below.
  std::atomic_thread_fence(std::memory_order_acquire);
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
