// What the Unix-socket accept loop counts, for GetStatus.
#ifndef OPTRACE_DAEMON_API_ACCEPT_COUNTERS_H_
#define OPTRACE_DAEMON_API_ACCEPT_COUNTERS_H_

#include <atomic>
#include <cstdint>

namespace optrace::daemon {

// Written by the listener's thread only, read by anyone; relaxed atomics
// (independent counts).
struct AcceptCounters {
  // Times accept found the daemon at its fd limit (EMFILE, ENFILE) and
  // paused accepting (100 ms) instead of polling again at once.
  std::atomic<uint64_t> accepts_paused_fd_limit{0};
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_ACCEPT_COUNTERS_H_
