// The ingest rate GetStatus shows: events per second over the last few
// heartbeats.
#ifndef OPTRACE_DAEMON_DRAIN_INGEST_RATE_H_
#define OPTRACE_DAEMON_DRAIN_INGEST_RATE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace optrace::daemon {

// Not thread-safe: the drain thread only.
class IngestRate {
 public:
  // Records that `events_ingested` events were ingested in all by `now_ns`
  // (CLOCK_MONOTONIC); keeps the last kSamples samples.
  void Sample(uint64_t now_ns, uint64_t events_ingested);
  // Events per second between the oldest and the newest sample kept; 0
  // with fewer than two samples.
  double EventsPerSecond() const;

  static constexpr size_t kSamples = 6;

 private:
  std::deque<std::pair<uint64_t, uint64_t>> samples_;  // (time, events ingested)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_INGEST_RATE_H_
