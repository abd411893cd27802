// Daemon-wide counters, written by the drain thread and read by anyone
// (status, logs): every loss or rejection has a name here or in a session.
#ifndef OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_
#define OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_

#include <atomic>
#include <cstdint>

namespace optrace::daemon {

struct DaemonCounters {
  std::atomic<uint64_t> segments_attached{0};
  std::atomic<uint64_t> segments_rejected{0};  // failed validation; reported, left alone
  std::atomic<uint64_t> segments_removed{0};   // drained and removed after their process ended
  std::atomic<uint64_t> sessions_finished{0};
  std::atomic<uint64_t> events_ingested{0};
  std::atomic<uint64_t> batches_submitted{0};
  std::atomic<uint64_t> batches_shed{0};  // writer queue full
  std::atomic<uint64_t> events_shed{0};
  std::atomic<uint64_t> abi_violations{0};  // sum of the readers' violation counters
  std::atomic<uint64_t> level_writes{0};
  std::atomic<uint64_t> level_tampered{0};  // a producer's live word differed from ours
  std::atomic<uint64_t> drain_passes{0};
  std::atomic<uint64_t> producer_wakeups{0};  // a ring crossed its watermark while we slept
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_
