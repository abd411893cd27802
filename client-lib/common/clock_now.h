// The one reading of a POSIX clock in nanoseconds, shared by producers
// (segment creation times), the reader (clock calibration) and the daemon
// (end times, retention, flush and cut timers).
#ifndef OPTRACE_COMMON_CLOCK_NOW_H_
#define OPTRACE_COMMON_CLOCK_NOW_H_

#include <time.h>

#include <cstdint>

namespace optrace {

// `clock` (CLOCK_MONOTONIC, CLOCK_REALTIME, ...) now, in nanoseconds since
// its epoch. REQUIRES: `clock` is a clock this system has (clock_gettime
// cannot fail then). Async-signal-safe, no allocation: producers may call it
// anywhere.
inline uint64_t ClockNowNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace optrace

#endif  // OPTRACE_COMMON_CLOCK_NOW_H_
