// The producer's inline fast path. Internal to liboptrace: applications use
// optrace.hpp / optrace.h, which call into this.
//
// Cost model (see docs/abi.md):
//   filtered out by the live level: one load of the level pointer (fixed once
//     the segment exists), one relaxed load of the level word, one branch;
//   recorded: a timestamp read, one compare of the position with the next
//     fill check, one 64-byte store into the thread's own ring slot and one
//     release store of the ring's write position.
// No syscall, lock, allocation or atomic read-modify-write on this path;
// anything unusual goes to an out-of-line slow path.
#ifndef OPTRACE_DETAIL_FAST_PATH_H_
#define OPTRACE_DETAIL_FAST_PATH_H_

#include <atomic>
#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "optrace/abi.h"
#include "optrace/export.h"

namespace optrace::detail {

// Level word value meaning "the runtime is not initialised yet". It is above
// every real level, so the first op of the process passes the level check
// and initialises the runtime on its way (LevelEnabledSlow).
inline constexpr uint32_t kBootstrapLevel = 0xff;

// Per-thread producer state, in static TLS (initial-exec model, plain old
// data so that access needs no TLS wrapper call). Zero means "not set up".
// Only its own thread reads or writes it.
struct ThreadWriter {
  abi::OpEvent* fast_slots;  // the ring's slots, or nullptr: take the slow path
  abi::RingHeader* ring;     // the claimed ring, or nullptr
  abi::OpEvent* ring_slots;  // the claimed ring's slots (also when fast_slots is null)
  uint64_t mask;             // ring_capacity - 1
  uint64_t write_pos;        // private copy of ring->write_pos
  // The position of the next fill check (CheckFillSlow): where the ring,
  // by the last read_pos seen (read only there), crosses its wake
  // watermark or is full.
  uint64_t check_pos;
  uint64_t wake_tried_at_read;  // read_pos at our last try to wake the daemon (~0: none)
  uint64_t dropped;             // private copy of ring->dropped
  uint64_t next_op_id;          // next id of this thread's id block
  uint64_t op_id_end;           // one past the block's last id
  uint64_t current_op;          // innermost scoped op open on this thread (parent of new ops)
  uint32_t tid;                 // OS thread id
  uint8_t drops_pending;        // kFlagDropsBefore for the next written event
  // Lossless mode: read_pos when a wait for room last ran out (~0: none);
  // the ring waits again only once the daemon has read past it.
  uint64_t wait_expired_at_read;
};

OPTRACE_EXPORT extern __thread ThreadWriter tls_writer __attribute__((tls_model("initial-exec")));

// Points at the live level word: a bootstrap word before the runtime exists,
// then the segment's SegmentHeader::level (or a private word when no segment
// could be created). Release-stored once the pointee is initialised.
OPTRACE_EXPORT extern std::atomic<const std::atomic<uint32_t>*> g_level_word;

// Slow paths (out of line, in liboptrace).
OPTRACE_EXPORT bool LevelEnabledSlow(uint32_t level) noexcept;
OPTRACE_EXPORT void EmitSlow(const abi::OpEvent& event) noexcept;
OPTRACE_EXPORT void RefillOpIds(ThreadWriter& writer) noexcept;
OPTRACE_EXPORT bool CheckFillSlow(ThreadWriter& writer) noexcept;

// Timestamp in the segment's clock domain (abi::ClockId).
inline uint64_t Now() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// True when events at `level` pass the live level.
inline bool LevelEnabled(abi::LevelValue level) noexcept {
  // Acquire pairs with the release store that installs the segment's level
  // word; relaxed on the word itself: a level change may take effect a few
  // events late, which is all the contract promises.
  const uint32_t live =
      g_level_word.load(std::memory_order_acquire)->load(std::memory_order_relaxed);
  if (live < static_cast<uint32_t>(level)) return false;
  if (live == kBootstrapLevel) [[unlikely]]
    return LevelEnabledSlow(static_cast<uint32_t>(level));
  return true;
}

// A new op id: unique in the process, increasing on each thread. Ids come in
// per-thread blocks, so there is no shared atomic per op.
inline uint64_t NextOpId(ThreadWriter& w) noexcept {
  if (w.next_op_id == w.op_id_end) [[unlikely]]
    RefillOpIds(w);
  return w.next_op_id++;
}

// Writes one event at the next position of the ring behind `w`, or counts a
// drop when the ring is full; one compare per event decides whether the
// fill needs a look (ring full, or the wake watermark crossed).
// `fill(slot)` sets every field but thread_id and stamp, straight into the
// slot: building the event elsewhere and copying it would cost
// store-forwarding stalls on the hot path.
// REQUIRES: `w` is the calling thread's writer and owns a ring.
template <typename Fill>
inline void WriteSlot(ThreadWriter& w, abi::OpEvent* slots, Fill&& fill) noexcept {
  const uint64_t pos = w.write_pos;
  if (pos >= w.check_pos) [[unlikely]] {
    if (!CheckFillSlow(w)) return;
  }
  abi::OpEvent& slot = slots[pos & w.mask];
  fill(slot);
  slot.thread_id = w.tid;
  slot.flags = static_cast<uint8_t>(slot.flags | w.drops_pending);
  slot.stamp = abi::StampFor(pos);
  w.drops_pending = 0;
  w.write_pos = pos + 1;
  // Release: publishes the slot written above. Pairs with the consumer's
  // acquire load of write_pos before it copies the slot.
  w.ring->write_pos.store(pos + 1, std::memory_order_release);
}

// Appends one event, described by `fill` (as for WriteSlot), to the calling
// thread's ring; never blocks. The first event of a thread, and every event
// while the stderr sink is on, takes the slow path.
template <typename Fill>
inline void Emit(Fill&& fill) noexcept {
  ThreadWriter& w = tls_writer;
  if (w.fast_slots == nullptr) [[unlikely]] {
    abi::OpEvent event{};
    fill(event);
    return EmitSlow(event);
  }
  WriteSlot(w, w.fast_slots, fill);
}

}  // namespace optrace::detail

#endif  // OPTRACE_DETAIL_FAST_PATH_H_
