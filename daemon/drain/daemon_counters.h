// Daemon-wide counters, written by the drain thread and read by anyone
// (status, logs): every loss or rejection has a name here or in a session.
#ifndef OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_
#define OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_

#include <atomic>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace optrace::daemon {

// The one list of daemon-wide counters: X(name, what it counts). The
// struct's members and kDaemonCounters (which GetStatus reports, each under
// its name) are both generated from it, so a counter is added here only.
#define OPTRACE_DAEMON_COUNTERS(X)                                               \
  X(segments_attached, "segments claimed and drained")                           \
  X(segments_rejected, "segments that failed validation; reported, left alone")  \
  X(segments_rejected_forgotten,                                                 \
    "rejected names forgotten to bound the list; validated again if seen again") \
  X(segments_deferred_uid_cap,                                                   \
    "segments not attached while their uid had max_segments_per_uid attached")   \
  X(segments_removed, "segments drained and removed after their process ended")  \
  X(sessions_finished, "sessions ended because their process exited or crashed") \
  X(events_ingested, "events read from the rings")                               \
  X(batches_submitted, "batches handed to the writer")                           \
  X(batches_shed, "batches not stored because the writer queue was full")        \
  X(events_shed, "events in the shed batches")                                   \
  X(events_refused, "events in batches the database refused (batches_dropped)")  \
  X(abi_violations, "sum of the ring readers' violation counters")               \
  X(level_writes, "level words written")                                         \
  X(level_tampered, "times a producer's live word differed from ours")           \
  X(drain_passes, "passes of the drain thread over the attached segments")       \
  X(producer_wakeups, "times a ring crossed its watermark while the drain thread slept")

// Thread rules: each counter is an atomic incremented by its one writer
// (the drain thread) and read by anyone; the values are independent, so a
// reader sees each one at some moment, not all at one moment.
struct DaemonCounters {
#define OPTRACE_DECLARE_DAEMON_COUNTER(name, help) std::atomic<uint64_t> name{0};
  OPTRACE_DAEMON_COUNTERS(OPTRACE_DECLARE_DAEMON_COUNTER)
#undef OPTRACE_DECLARE_DAEMON_COUNTER
};

// One row of kDaemonCounters: the counter's name (as GetStatus reports it),
// its member, and what it counts.
struct DaemonCounterSpec {
  std::string_view name;
  std::atomic<uint64_t> DaemonCounters::*member;
  std::string_view help;
};

// Every member of DaemonCounters, in declaration order.
inline constexpr DaemonCounterSpec kDaemonCounters[] = {
#define OPTRACE_DAEMON_COUNTER_SPEC(name, help) {#name, &DaemonCounters::name, help},
    OPTRACE_DAEMON_COUNTERS(OPTRACE_DAEMON_COUNTER_SPEC)
#undef OPTRACE_DAEMON_COUNTER_SPEC
};
static_assert(sizeof(DaemonCounters) == std::size(kDaemonCounters) * sizeof(std::atomic<uint64_t>),
              "every DaemonCounters member is a row of kDaemonCounters");

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DAEMON_COUNTERS_H_
