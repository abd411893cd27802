// Maps CUPTI timestamps (nanoseconds of CUPTI's host clock, onto which it
// has already mapped the GPU's own clock) onto optrace's event clock, so
// that a kernel's device start and end sit on the same time line as the
// host ops around it.
#ifndef OPTRACE_NVTX_CUPTI_CLOCK_MAPPING_H_
#define OPTRACE_NVTX_CUPTI_CLOCK_MAPPING_H_

#include <cstdint>

namespace optrace::nvtx {

// The two clocks read at (nearly) the same instant.
struct ClockSample {
  uint64_t source_ns = 0;  // CUPTI's clock
  uint64_t event_ts = 0;   // optrace::EventClockNow()
};

// A linear map source_ns -> event_ts through the latest sample, with the
// rate (event ticks per source ns) measured between the first sample and
// the latest, so it only gets more precise the longer the process runs.
// Until two samples are kMinRateSpanNs apart the initial rate is used.
// Thread rules: a value type; the owner serialises Update and ToEventClock.
class ClockMapping {
 public:
  static constexpr uint64_t kMinRateSpanNs = 1000000;  // 1 ms

  ClockMapping(ClockSample first, double initial_ticks_per_ns);

  // Adds a newer sample (a sample older than the latest is ignored).
  void Update(ClockSample latest);

  // `source_ns` in the event clock; 0 for times before the event clock's
  // zero (impossible for a real record).
  uint64_t ToEventClock(uint64_t source_ns) const;

  double ticks_per_ns() const { return ticks_per_ns_; }

 private:
  ClockSample first_;
  ClockSample latest_;
  double ticks_per_ns_;
};

// Samples both clocks, then again once `read_source_ns` has advanced by
// kMinRateSpanNs (a 1 ms busy wait), and returns the mapping between them.
// `read_source_ns` is CUPTI's clock (cuptiGetTimestamp, or a stub in
// tests).
ClockMapping CalibrateClockMapping(uint64_t (*read_source_ns)());

}  // namespace optrace::nvtx

#endif  // OPTRACE_NVTX_CUPTI_CLOCK_MAPPING_H_
