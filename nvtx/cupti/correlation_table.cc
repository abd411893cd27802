#include "nvtx/cupti/correlation_table.h"

namespace optrace::nvtx {

CorrelationTable::CorrelationTable() : slots_(std::make_unique<Slot[]>(kSlots)) {}

void CorrelationTable::Put(uint32_t correlation_id, uint64_t op_id) noexcept {
  Slot& slot = slots_[correlation_id % kSlots];
  // Invalidate first, so a reader that sees the new op id with the old
  // correlation id rejects it.
  slot.correlation_id.store(0, std::memory_order_relaxed);
  // Release fence: orders the invalidation before the op id store for a
  // reader that acquires the invalidated id (pairs with Find's fence).
  std::atomic_thread_fence(std::memory_order_release);
  slot.op_id.store(op_id, std::memory_order_relaxed);
  // Release: publishes op_id. Pairs with the acquire load in Find.
  slot.correlation_id.store(correlation_id, std::memory_order_release);
}

uint64_t CorrelationTable::Find(uint32_t correlation_id) const noexcept {
  if (correlation_id == 0) return 0;
  const Slot& slot = slots_[correlation_id % kSlots];
  // Acquire pairs with Put's release store: the op id read below is at
  // least as new as this correlation id's.
  if (slot.correlation_id.load(std::memory_order_acquire) != correlation_id) return 0;
  const uint64_t op_id = slot.op_id.load(std::memory_order_relaxed);
  // Acquire fence: the re-check below sees any Put that began after the
  // op id we read was replaced (pairs with Put's release fence).
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot.correlation_id.load(std::memory_order_relaxed) != correlation_id) return 0;
  return op_id;
}

}  // namespace optrace::nvtx
