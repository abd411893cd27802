// Converts a segment's event timestamps (TSC ticks or monotonic ns) to
// CLOCK_MONOTONIC and CLOCK_REALTIME nanoseconds.
#ifndef OPTRACE_READER_CLOCK_CONVERTER_H_
#define OPTRACE_READER_CLOCK_CONVERTER_H_

#include <cstdint>

#include "optrace/reader/attached_segment.h"

namespace optrace::reader {

// TSC ticks per nanosecond on this machine, calibrated against
// CLOCK_MONOTONIC on first use (a 20 ms sample) and refined by every later
// RefineTscRate() call over the whole time since (so it only gets better).
// Thread-safe. On machines without a TSC the producer uses monotonic ns.
double TscTicksPerNs();
void RefineTscRate();

// Per-segment conversion anchored at the segment's creation instant.
// The anchors are added in integer arithmetic, so a converted time is exact
// to the nanosecond of its offset from creation: monotonic-ns segments and
// segments that declare their tick rate convert exactly (64 by 128-bit
// products); a calibrated TSC converts its offset in double, within half a
// nanosecond for offsets below 2^52 ns (52 days).
// Thread rules: a value type; reads the process-wide TSC rate.
class ClockConverter {
 public:
  explicit ClockConverter(const SegmentGeometry& geometry);

  // Event time to CLOCK_MONOTONIC ns. Times before the segment's creation
  // (implausible) convert as negative offsets, clamped at 0.
  uint64_t ToMonotonicNs(uint64_t ts) const;
  // Event time to CLOCK_REALTIME ns (wall clock, for display and storage).
  uint64_t ToRealtimeNs(uint64_t ts) const;
  // Nanoseconds between two event times (0 if `end` precedes `begin`).
  uint64_t DurationNs(uint64_t begin_ts, uint64_t end_ts) const;

 private:
  // Signed ticks to nanoseconds, rounded to the nearest.
  int64_t TicksToNs(int64_t ticks) const;
  // `anchor_ns` plus the nanoseconds of `ts` since creation, clamped at 0.
  uint64_t SinceCreation(uint64_t anchor_ns, uint64_t ts) const;
  abi::ClockId clock_id_;
  uint64_t ticks_per_sec_;
  uint64_t created_ts_;
  uint64_t created_monotonic_ns_;
  uint64_t created_realtime_ns_;
};

}  // namespace optrace::reader

#endif  // OPTRACE_READER_CLOCK_CONVERTER_H_
