// One bounded ring of LiveRecords written by one thread and read by any
// number of readers, each with its own cursor. The writer never waits for
// a reader: it overwrites the oldest record, and a reader that was
// overtaken learns exactly how many records it lost.
#ifndef OPTRACE_DAEMON_LIVE_BROADCAST_BUFFER_H_
#define OPTRACE_DAEMON_LIVE_BROADCAST_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "live/live_record.h"

namespace optrace::daemon {

// Thread rules: Append from one writer thread only; everything else from
// any thread. No lock anywhere; the writer's cost is one record copy and
// two stores, whatever the number of readers.
//
// Protocol (a seqlock over the whole ring): before writing position p the
// writer announces it in `claimed_` (p + 1), then writes the slot, then
// publishes it in `published_` (p + 1). A reader copies slots below
// `published_` and afterwards reads `claimed_`: a slot of position q whose
// copy may have met the write of q + capacity (claimed_ > q + capacity) is
// discarded and counted lost. Slots are arrays of atomic words (release
// stores, acquire loads), so a torn copy is detected, never undefined
// behaviour.
class BroadcastBuffer {
 public:
  // REQUIRES: `capacity` is a power of two, at least 2.
  explicit BroadcastBuffer(size_t capacity);
  BroadcastBuffer(const BroadcastBuffer&) = delete;
  BroadcastBuffer& operator=(const BroadcastBuffer&) = delete;

  // Writer only: publishes `record` at position published().
  void Append(const LiveRecord& record);

  // Records published so far: positions [0, published()) were written.
  // Seq_cst: see Append.
  uint64_t published() const { return published_.load(std::memory_order_seq_cst); }
  size_t capacity() const { return mask_ + 1; }

  // What Read copied: out[0, count) are the records of positions
  // [first, first + count). Positions [from, first) were overwritten
  // before the reader got to them: lost to it.
  struct Span {
    uint64_t first = 0;
    size_t count = 0;
  };
  // Copies up to `max` records from position `from` on into `out`.
  // REQUIRES: `from` <= published() (a cursor this reader advanced).
  Span Read(uint64_t from, LiveRecord* out, size_t max) const;

 private:
  static constexpr size_t kWords = sizeof(LiveRecord) / sizeof(uint64_t);
  struct Slot {
    std::atomic<uint64_t> words[kWords];
  };

  const uint64_t mask_;
  std::unique_ptr<Slot[]> slots_;
  uint64_t next_ = 0;  // writer only: the position the next Append writes
  // Written by the writer only; the acquire/release pairs are described at
  // each access.
  alignas(64) std::atomic<uint64_t> claimed_{0};
  std::atomic<uint64_t> published_{0};
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_BROADCAST_BUFFER_H_
