#include "storage/op_aggregate.h"

#include <algorithm>

namespace optrace::daemon {

void OpAggregate::Merge(const OpAggregate& other) {
  if (other.ok_count > 0) {
    min_ns = ok_count == 0 ? other.min_ns : std::min(min_ns, other.min_ns);
    max_ns = std::max(max_ns, other.max_ns);
  }
  count += other.count;
  ok_count += other.ok_count;
  total_ns =
      other.total_ns > kMaxAggregateNs - total_ns ? kMaxAggregateNs : total_ns + other.total_ns;
  self_ns = other.self_ns > kMaxAggregateNs - self_ns ? kMaxAggregateNs : self_ns + other.self_ns;
}

void PendingAggregate::Add(const Span& span) {
  totals.Add(span);
  if (span.status == SpanStatus::kOk) {
    ok_durations.push_back(std::min(span.duration_ns, kMaxAggregateNs));
  }
}

DurationSketch PendingAggregate::UnwrittenWithBatch() const {
  DurationSketch sketch = unwritten;
  for (const uint64_t ns : ok_durations) sketch.Add(ns);
  return sketch;
}

size_t OpAggregateKeyHash::operator()(const OpAggregateKey& key) const {
  // Mixes the fields into one word, then scrambles it (splitmix64's finaliser).
  uint64_t h = key.session * 0x9e3779b97f4a7c15ULL;
  h ^= (static_cast<uint64_t>(key.name) << 32) | key.tag;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h ^= (static_cast<uint64_t>(key.device) << 8) | key.target;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<size_t>(h ^ (h >> 31));
}

void PendingAggregates::Add(SessionId session, const Span& span) {
  entries_[OpAggregateKey{session, span.name, span.tag, span.target, span.device}].Add(span);
}

void PendingAggregates::Committed(bool sketches_written) {
  if (sketches_written) {
    unwritten_keys_ = 0;
    if (entries_.size() > kKeptKeys) {
      entries_.clear();
      return;
    }
    for (auto& [key, entry] : entries_) entry.unwritten.Clear();
  } else {
    for (auto& [key, entry] : entries_) {
      if (entry.ok_durations.empty()) continue;
      if (entry.unwritten.Count() == 0) ++unwritten_keys_;
      for (const uint64_t ns : entry.ok_durations) entry.unwritten.Add(ns);
    }
  }
  ClearBatch();
}

void PendingAggregates::RolledBack() { ClearBatch(); }

void PendingAggregates::ClearBatch() {
  for (auto& [key, entry] : entries_) {
    entry.totals = OpAggregate();
    entry.ok_durations.clear();
  }
}

}  // namespace optrace::daemon
