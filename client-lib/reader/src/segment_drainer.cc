#include "optrace/reader/segment_drainer.h"

#include <algorithm>
#include <cstring>

#include "optrace/reader/shm_fault_guard.h"

namespace optrace::reader {
namespace {

const abi::RingHeader* RingAt(const AttachedSegment& s, uint32_t index) {
  return reinterpret_cast<const abi::RingHeader*>(s.base() + s.geometry().rings_offset) + index;
}

const abi::OpEvent* SlotsOf(const AttachedSegment& s, uint32_t index) {
  return reinterpret_cast<const abi::OpEvent*>(s.base() + s.geometry().slots_offset) +
         uint64_t{index} * s.geometry().ring_capacity;
}

// Invariant 7: tail <= head <= tail + capacity.
bool RingInvariantHolds(uint64_t tail, uint64_t head, uint64_t capacity) {
  return head >= tail && head - tail <= capacity;
}

// Moves a counter the producer keeps monotonic into `total`; a decrease is a
// violation and is not subtracted.
void Accumulate(uint64_t now, uint64_t* last, uint64_t* total, ReaderStats* stats) {
  if (now < *last) {
    ++stats->counters_went_backwards;
  } else {
    *total += now - *last;
  }
  *last = now;
}

}  // namespace

SegmentDrainer::SegmentDrainer(AttachedSegment& segment, ReleasePolicy policy)
    : segment_(segment),
      policy_(policy),
      cursors_(segment.geometry().ring_count),
      chunk_(new abi::OpEvent[kChunkEvents]) {
  const uint64_t cap = segment_.geometry().ring_capacity;
  for (uint32_t i = 0; i < cursors_.size(); ++i) {
    const abi::RingHeader* ring = RingAt(segment_, i);
    uint64_t read = 0, write = 0;
    const bool ok = Guarded(segment_.base(), segment_.bytes(), [&] {
      read = ring->read_pos.load(std::memory_order_acquire);
      write = ring->write_pos.load(std::memory_order_acquire);
    });
    if (!ok) continue;  // faults again (and is counted) at the first drain
    RingCursor& c = cursors_[i];
    c.next_pos = RingInvariantHolds(read, write, cap) ? read : (write >= cap ? write - cap : 0);
    c.released = c.next_pos;
    c.committed = c.next_pos;
    // last_dropped stays 0: the drop counters we accumulate are the
    // producer's totals since it started, whoever drained before us.
  }
}

bool SegmentDrainer::ValidateEvent(abi::OpEvent& e, uint32_t string_count,
                                   ReaderStats* stats) const {
  const bool is_op = e.kind == static_cast<uint8_t>(abi::EventKind::kLaunch) ||
                     e.kind == static_cast<uint8_t>(abi::EventKind::kComplete);
  if (e.kind == 0 || e.kind > abi::kMaxEventKind || (is_op && e.op_id == 0)) {
    ++stats->events_invalid;
    return false;
  }
  if (e.level > abi::kMaxLevel || e.target_kind > abi::kMaxTargetKind) {
    ++stats->events_invalid;
    e.level = std::min<uint8_t>(e.level, abi::kMaxLevel);
    if (e.target_kind > abi::kMaxTargetKind) e.target_kind = 0;
  }
  for (uint32_t* id : {&e.name_id, &e.tag_id, &e.srcloc_id}) {
    if (*id != abi::kStringNone && *id >= string_count) {
      ++stats->unknown_string_ids;
      *id = kInvalidStringId;
    }
  }
  e.reserved = 0;
  return true;
}

uint64_t SegmentDrainer::DrainRing(uint32_t index, size_t budget, DrainMode mode, uint64_t now_ns,
                                   std::vector<abi::OpEvent>* out, ReaderStats* stats) {
  const uint64_t cap = segment_.geometry().ring_capacity;
  const abi::RingHeader* ring = RingAt(segment_, index);
  RingCursor& c = cursors_[index];
  uint64_t head_untrusted = 0, dropped = 0;
  uint32_t state = 0;
  if (!Guarded(segment_.base(), segment_.bytes(), [&] {
        // Acquire pairs with the producer's release store of write_pos:
        // slots below it are fully written.
        head_untrusted = ring->write_pos.load(std::memory_order_acquire);
        dropped = ring->dropped.load(std::memory_order_relaxed);
        state = ring->state.load(std::memory_order_acquire);
      })) {
    ++stats->shm_faults;
    return 0;
  }
  Accumulate(dropped, &c.last_dropped, &stats->events_dropped_ring_full, stats);
  if (state > static_cast<uint32_t>(abi::RingState::kRetired) && !c.bad_state_seen) {
    ++stats->bad_ring_states;
    c.bad_state_seen = true;
  }
  if (!RingInvariantHolds(c.next_pos, head_untrusted, cap)) {
    // Invariant: read_pos <= write_pos <= read_pos + capacity. A ring that
    // breaks it is hostile or corrupt; resynchronise instead of trusting it.
    ++stats->ring_corrupt;
    if (head_untrusted > c.next_pos) stats->events_lost_resync += head_untrusted - c.next_pos;
    c.next_pos = head_untrusted;
  }
  const uint64_t available = head_untrusted - c.next_pos;
  uint64_t left = std::min<uint64_t>(available, budget);
  const abi::OpEvent* slots = SlotsOf(segment_, index);
  while (left > 0) {
    // Copy into the private chunk, validate in place (compacting away what
    // fails), then append what passed to `out`: one cache-friendly chunk at
    // a time, never across the end of the slot array. (Copying straight
    // into `out` would first zero every element it grows by.)
    const uint64_t first = c.next_pos & (cap - 1);
    const uint64_t n = std::min({left, cap - first, kChunkEvents});
    abi::OpEvent* dst = chunk_.get();
    if (!GuardedCopy(segment_.base(), segment_.bytes(), dst, slots + first,
                     n * sizeof(abi::OpEvent))) {
      ++stats->shm_faults;
      return available;
    }
    // Strings are published before the events that use them, so the count
    // read after the head covers every id these events may name.
    const auto fields = segment_.ReadProducerFields();
    const uint32_t string_count = fields ? fields->string_count : last_string_count_;
    uint64_t consumed = 0;
    size_t kept = 0;
    bool stopped = false;
    for (; consumed < n; ++consumed) {
      const uint64_t pos = c.next_pos + consumed;
      abi::OpEvent& e = dst[consumed];
      if (e.stamp != abi::StampFor(pos)) {
        const bool waited_out = c.torn_pos == pos && now_ns - c.torn_since_ns >= kTornGraceNs;
        if (mode == DrainMode::kLive && !waited_out) {
          if (c.torn_pos != pos) {
            c.torn_pos = pos;
            c.torn_since_ns = now_ns;
          }
          stopped = true;  // the slot may still be being written: next pass
          break;
        }
        ++stats->slots_torn;
        continue;
      }
      if (ValidateEvent(e, string_count, stats)) {
        if (kept != consumed) dst[kept] = e;
        ++kept;
      }
    }
    out->insert(out->end(), dst, dst + kept);
    stats->events_read += kept;
    c.next_pos += consumed;
    left -= consumed;
    if (stopped) break;
  }
  uint64_t release = c.next_pos;
  if (policy_ == ReleasePolicy::kOnCommit && head_untrusted - c.committed <= cap / 2) {
    release = c.committed;  // keep what is not yet durable, while there is room
  }
  Release(index, release, head_untrusted, state, stats);
  return head_untrusted - c.next_pos;
}

uint64_t SegmentDrainer::ResumeAt(uint32_t index, uint64_t committed) {
  RingCursor& c = cursors_[index];
  const uint64_t cap = segment_.geometry().ring_capacity;
  if (committed > c.next_pos) {
    // Already stored by the previous consumer, which released less than it
    // stored: skip it, if the ring still vouches for the position.
    uint64_t head = 0;
    const abi::RingHeader* ring = RingAt(segment_, index);
    if (Guarded(segment_.base(), segment_.bytes(),
                [&] { head = ring->write_pos.load(std::memory_order_acquire); }) &&
        committed <= head && head - committed <= cap) {
      c.next_pos = committed;
    }
    c.committed = c.next_pos;
    return 0;
  }
  c.committed = c.next_pos;
  return c.next_pos - committed;
}

void SegmentDrainer::MarkCommitted(uint32_t index, uint64_t position) {
  RingCursor& c = cursors_[index];
  c.committed = std::max(c.committed, std::min(position, c.next_pos));
  if (c.committed > c.released) {
    Guarded(segment_.base(), segment_.bytes(), [&] {
      auto* ring = const_cast<abi::RingHeader*>(RingAt(segment_, index));
      ring->read_pos.store(c.committed, std::memory_order_release);
    });
    c.released = c.committed;
  }
}

void SegmentDrainer::Release(uint32_t index, uint64_t pos, uint64_t head, uint32_t state,
                             ReaderStats* stats) {
  RingCursor& c = cursors_[index];
  const uint32_t retired = static_cast<uint32_t>(abi::RingState::kRetired);
  const bool advance = pos > c.released;
  const bool free_ring = state == retired && std::max(pos, c.released) == head;
  if (!advance && !free_ring) return;  // idle ring: no store at all
  auto* ring = const_cast<abi::RingHeader*>(RingAt(segment_, index));
  if (!Guarded(segment_.base(), segment_.bytes(), [&] {
        // Release: our copies of the slots happen-before the producer
        // reuses them. Pairs with its acquire load of read_pos.
        if (advance) ring->read_pos.store(pos, std::memory_order_release);
        // A retired ring that we drained completely is free again.
        uint32_t expected = retired;
        if (free_ring) {
          ring->state.compare_exchange_strong(
              expected, static_cast<uint32_t>(abi::RingState::kFree), std::memory_order_acq_rel);
        }
      })) {
    ++stats->shm_faults;
    return;
  }
  if (advance) c.released = pos;
}

bool SegmentDrainer::Drain(size_t budget, DrainMode mode, uint64_t now_ns,
                           std::vector<abi::OpEvent>* out, ReaderStats* stats) {
  if (const auto fields = segment_.ReadProducerFields()) {
    Accumulate(fields->events_dropped_no_ring, &last_no_ring_drops_, &stats->events_dropped_no_ring,
               stats);
    Accumulate(fields->strings_dropped, &last_strings_dropped_, &stats->strings_dropped, stats);
    Accumulate(fields->names_capped, &last_names_capped_, &stats->names_capped, stats);
    Accumulate(fields->full_ring_wait_ns, &last_full_ring_wait_ns_, &stats->full_ring_wait_ns,
               stats);
    Accumulate(fields->full_ring_wait_timeouts, &last_full_ring_wait_timeouts_,
               &stats->full_ring_wait_timeouts, stats);
    Accumulate(fields->listings_refused, &last_listings_refused_, &stats->listings_refused, stats);
    Accumulate(fields->listings_dropped, &last_listings_dropped_, &stats->listings_dropped, stats);
    if (fields->string_count < last_string_count_) ++stats->counters_went_backwards;
    if (fields->listing_count < last_listing_count_) ++stats->counters_went_backwards;
    last_string_count_ = std::max(last_string_count_, fields->string_count);
    last_listing_count_ = std::max(last_listing_count_, fields->listing_count);
  } else {
    ++stats->shm_faults;
  }
  const auto ring_count = static_cast<uint32_t>(cursors_.size());
  bool more = false;
  size_t left = budget;
  for (uint32_t k = 0; k < ring_count; ++k) {
    const uint32_t index = (next_ring_ + k) % ring_count;
    const size_t before = out->size();
    const uint64_t remaining = DrainRing(index, left, mode, now_ns, out, stats);
    left -= std::min(left, out->size() - before);
    if (remaining > 0) more = true;
    if (left == 0) {
      more = true;
      next_ring_ = (index + 1) % ring_count;
      return more;
    }
  }
  next_ring_ = (next_ring_ + 1) % ring_count;
  return more;
}

}  // namespace optrace::reader
