#include "drain/ingest_rate.h"

namespace optrace::daemon {

void IngestRate::Sample(uint64_t now_ns, uint64_t events_ingested) {
  samples_.emplace_back(now_ns, events_ingested);
  while (samples_.size() > kSamples) samples_.pop_front();
}

double IngestRate::EventsPerSecond() const {
  if (samples_.size() < 2) return 0;
  const auto& [t0, e0] = samples_.front();
  const auto& [t1, e1] = samples_.back();
  if (t1 <= t0) return 0;
  return static_cast<double>(e1 - e0) * 1e9 / static_cast<double>(t1 - t0);
}

}  // namespace optrace::daemon
