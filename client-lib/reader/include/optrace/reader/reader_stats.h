// Counters of everything a consumer found wrong with, or dropped from, one
// segment. Every violation of an ABI rule increments one named counter at
// the place it is detected.
#ifndef OPTRACE_READER_READER_STATS_H_
#define OPTRACE_READER_READER_STATS_H_

#include <cstdint>

namespace optrace::reader {

struct ReaderStats {
  uint64_t events_read = 0;              // events copied out and validated
  uint64_t ring_corrupt = 0;             // head behind our tail or beyond capacity: resynced
  uint64_t events_lost_resync = 0;       // events skipped by those resyncs
  uint64_t slots_torn = 0;               // stamp did not match the position: skipped
  uint64_t events_invalid = 0;           // unknown kind/level/target or zero op id
  uint64_t unknown_string_ids = 0;       // id >= string_count: shown as a placeholder
  uint64_t bad_string_entries = 0;       // entry outside the blob or too long
  uint64_t bad_listing_entries = 0;      // listing outside the blob, unknown file or line 0
  uint64_t counters_went_backwards = 0;  // a monotonic producer counter decreased
  uint64_t bad_ring_states = 0;          // ring state not one of the three values
  uint64_t shm_faults = 0;               // SIGBUS/SIGSEGV while reading the segment
  // Producer-side losses, accumulated from the producer's own counters.
  uint64_t events_dropped_ring_full = 0;
  uint64_t events_dropped_no_ring = 0;
  uint64_t strings_dropped = 0;
  uint64_t names_capped = 0;  // names/tags replaced at an instrumentation cap (not events)
  // Lossless mode (OPTRACE_FULL_RING=wait): time the producer's threads
  // waited for room in full rings, and the waits that ran out (not events).
  uint64_t full_ring_wait_ns = 0;
  uint64_t full_ring_wait_timeouts = 0;
  // Source listings (minor 5): locations whose file the producer could
  // not read, and listings that found its listing area full (not events).
  uint64_t listings_refused = 0;
  uint64_t listings_dropped = 0;

  // Sum of the validation problems (not the producer's own drops).
  uint64_t Violations() const {
    return ring_corrupt + slots_torn + events_invalid + unknown_string_ids + bad_string_entries +
           bad_listing_entries + counters_went_backwards + bad_ring_states + shm_faults;
  }
};

}  // namespace optrace::reader

#endif  // OPTRACE_READER_READER_STATS_H_
