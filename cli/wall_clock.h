// The wall clock, in the proto's unit: nanoseconds since the Unix epoch.
#ifndef OPTRACE_CLI_WALL_CLOCK_H_
#define OPTRACE_CLI_WALL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace optrace::cli {

// Now, as the daemon's *_unix_ns fields count.
inline int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_WALL_CLOCK_H_
