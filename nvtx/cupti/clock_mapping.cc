#include "nvtx/cupti/clock_mapping.h"

#include <cmath>

#include "optrace/finished_op.hpp"

namespace optrace::nvtx {
namespace {

// Reads the event clock between two reads of the source clock, so that
// the pair is as close to simultaneous as two clocks allow.
ClockSample SampleClocks(uint64_t (*read_source_ns)()) {
  const uint64_t before = read_source_ns();
  const uint64_t event_ts = EventClockNow();
  const uint64_t after = read_source_ns();
  return {before + (after - before) / 2, event_ts};
}

}  // namespace

ClockMapping::ClockMapping(ClockSample first, double initial_ticks_per_ns)
    : first_(first), latest_(first), ticks_per_ns_(initial_ticks_per_ns) {}

void ClockMapping::Update(ClockSample latest) {
  if (latest.source_ns <= latest_.source_ns) return;
  latest_ = latest;
  const uint64_t span_ns = latest_.source_ns - first_.source_ns;
  if (span_ns >= kMinRateSpanNs && latest_.event_ts > first_.event_ts) {
    ticks_per_ns_ =
        static_cast<double>(latest_.event_ts - first_.event_ts) / static_cast<double>(span_ns);
  }
}

uint64_t ClockMapping::ToEventClock(uint64_t source_ns) const {
  // Signed offset from the latest sample: records may precede or follow
  // it. Only the offset goes through floating point, so that large clock
  // values keep every tick.
  const double offset_ns = source_ns >= latest_.source_ns
                               ? static_cast<double>(source_ns - latest_.source_ns)
                               : -static_cast<double>(latest_.source_ns - source_ns);
  const int64_t offset_ticks = std::llround(offset_ns * ticks_per_ns_);
  if (offset_ticks < 0 && static_cast<uint64_t>(-offset_ticks) > latest_.event_ts) return 0;
  return latest_.event_ts + static_cast<uint64_t>(offset_ticks);
}

ClockMapping CalibrateClockMapping(uint64_t (*read_source_ns)()) {
  const ClockSample first = SampleClocks(read_source_ns);
  // Bounded, for a source clock that stands still or goes back.
  constexpr int kMaxReads = 1000000;
  ClockSample second = first;
  for (int i = 0; i < kMaxReads; ++i) {
    second = SampleClocks(read_source_ns);
    if (second.source_ns < first.source_ns ||
        second.source_ns - first.source_ns >= ClockMapping::kMinRateSpanNs) {
      break;
    }
  }
  double rate = 1.0;
  if (second.source_ns > first.source_ns && second.event_ts > first.event_ts) {
    rate = static_cast<double>(second.event_ts - first.event_ts) /
           static_cast<double>(second.source_ns - first.source_ns);
  }
  ClockMapping mapping(first, rate);
  mapping.Update(second);
  return mapping;
}

}  // namespace optrace::nvtx
