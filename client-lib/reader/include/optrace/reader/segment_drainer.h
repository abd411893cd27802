// Drains the rings of one attached segment: copy, then validate, then hand
// out events. Never trusts ring memory.
#ifndef OPTRACE_READER_SEGMENT_DRAINER_H_
#define OPTRACE_READER_SEGMENT_DRAINER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "optrace/abi.h"
#include "optrace/reader/attached_segment.h"
#include "optrace/reader/reader_stats.h"

namespace optrace::reader {

// String id the drainer puts in place of an id that was out of range.
inline constexpr uint32_t kInvalidStringId = 0xFFFFFFFFu;

enum class DrainMode {
  kLive,   // producer running: a torn slot is waited for, then skipped
  kFinal,  // producer gone: a torn slot is skipped at once; drain to the end
};

// When the consumer tells the producer it may reuse slots.
enum class ReleasePolicy {
  // read_pos follows the consumed position at the end of every pass.
  kOnDrain,
  // read_pos stays at the position the caller reports durable
  // (MarkCommitted), so that a consumer that dies before storing what it
  // read finds it again; it still jumps to the consumed position when the
  // ring is more than half full, so the producer never drops because of us.
  kOnCommit,
};

// Per-ring consumer state for one segment, kept privately (rule 17: the
// read positions in shared memory are our output, never our input, except
// once at attach). REQUIRES: used by one thread; `segment` outlives it.
class SegmentDrainer {
 public:
  // Starts each ring at its shared read_pos when that passes the ring
  // invariant (resuming after a daemon restart), else at the oldest
  // position that can still hold data.
  explicit SegmentDrainer(AttachedSegment& segment, ReleasePolicy policy = ReleasePolicy::kOnDrain);

  // Before the first Drain: a restarted consumer that knows ring `index` was
  // durably consumed up to `committed` skips what it already stored.
  // Returns how many events past `committed` the previous consumer had
  // already released (read but not stored: lost, for the caller to count).
  uint64_t ResumeAt(uint32_t index, uint64_t committed);

  // Everything of ring `index` below `position` is durable: read_pos may
  // move there. Only with ReleasePolicy::kOnCommit.
  void MarkCommitted(uint32_t index, uint64_t position);

  uint32_t ring_count() const { return static_cast<uint32_t>(cursors_.size()); }
  // The next position this drainer will read in ring `index`.
  uint64_t consumed_position(uint32_t index) const { return cursors_[index].next_pos; }

  // Appends at most `budget` validated events, taken from the rings in
  // rotating order, to `out`, and advances each ring's read_pos past what it
  // took. Updates `stats` (violations, producer drop counters).
  // `now_ns` (CLOCK_MONOTONIC) times how long a slot has stayed torn.
  // Returns true when some ring still had events left (budget exhausted).
  bool Drain(size_t budget, DrainMode mode, uint64_t now_ns, std::vector<abi::OpEvent>* out,
             ReaderStats* stats);

  // What the producer had published at the last Drain's read of its
  // fields: string_count and listing_count, clamped, never decreasing (a
  // listing counted here names a string counted here).
  uint32_t published_strings() const { return last_string_count_; }
  uint32_t published_listings() const { return last_listing_count_; }

  // How long a torn slot of a live producer is waited for before skipping.
  static constexpr uint64_t kTornGraceNs = 200'000'000;

  // Events copied out of shared memory at a time (64 KiB: stays in cache).
  static constexpr uint64_t kChunkEvents = 1024;

 private:
  struct RingCursor {
    uint64_t next_pos = 0;      // next position to read (private tail)
    uint64_t released = 0;      // read_pos we last stored in shared memory
    uint64_t committed = 0;     // durable position (kOnCommit)
    uint64_t last_dropped = 0;  // producer's dropped counter at our last read
    uint64_t torn_pos = ~0ULL;  // position first seen torn, if any
    uint64_t torn_since_ns = 0;
    bool bad_state_seen = false;
  };

  // Drains ring `index` into `out`; returns the events it left behind.
  uint64_t DrainRing(uint32_t index, size_t budget, DrainMode mode, uint64_t now_ns,
                     std::vector<abi::OpEvent>* out, ReaderStats* stats);

  // Rule 12-14 checks on a private copy. Returns false if the event is
  // unusable (counted); fixes what can be fixed with placeholders.
  bool ValidateEvent(abi::OpEvent& e, uint32_t string_count, ReaderStats* stats) const;

  // Stores read_pos = `pos` (monotonic) and frees a drained retired ring.
  void Release(uint32_t index, uint64_t pos, uint64_t head, uint32_t state, ReaderStats* stats);

  AttachedSegment& segment_;
  const ReleasePolicy policy_;
  std::vector<RingCursor> cursors_;
  uint32_t next_ring_ = 0;
  uint64_t last_no_ring_drops_ = 0;
  uint64_t last_strings_dropped_ = 0;
  uint64_t last_names_capped_ = 0;
  uint64_t last_full_ring_wait_ns_ = 0;
  uint64_t last_full_ring_wait_timeouts_ = 0;
  uint32_t last_string_count_ = 0;
  uint32_t last_listing_count_ = 0;
  uint64_t last_listings_refused_ = 0;
  uint64_t last_listings_dropped_ = 0;
  // Private copy of one chunk of slots, left uninitialised until copied to.
  std::unique_ptr<abi::OpEvent[]> chunk_;
};

}  // namespace optrace::reader

#endif  // OPTRACE_READER_SEGMENT_DRAINER_H_
