#include "storage/op_aggregate.h"

#include <algorithm>

namespace optrace::daemon {

void OpAggregate::Add(const Span& span) {
  ++count;
  if (span.status != SpanStatus::kOk) return;
  const uint64_t duration = std::min(span.duration_ns, kMaxAggregateNs);
  min_ns = ok_count == 0 ? duration : std::min(min_ns, duration);
  max_ns = std::max(max_ns, duration);
  total_ns = duration > kMaxAggregateNs - total_ns ? kMaxAggregateNs : total_ns + duration;
  ++ok_count;
}

void OpAggregate::Merge(const OpAggregate& other) {
  if (other.ok_count > 0) {
    min_ns = ok_count == 0 ? other.min_ns : std::min(min_ns, other.min_ns);
    max_ns = std::max(max_ns, other.max_ns);
  }
  count += other.count;
  ok_count += other.ok_count;
  total_ns =
      other.total_ns > kMaxAggregateNs - total_ns ? kMaxAggregateNs : total_ns + other.total_ns;
}

void SketchedAggregate::Add(const Span& span) {
  totals.Add(span);
  if (span.status == SpanStatus::kOk) sketch.Add(std::min(span.duration_ns, kMaxAggregateNs));
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

bool BatchAggregates::Has(const OpAggregateKey& key) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.totals.count != 0;
}

void BatchAggregates::Clear() {
  if (entries_.size() > kKeptKeys) {
    entries_.clear();
    return;
  }
  for (auto& [key, entry] : entries_) {
    entry.totals = OpAggregate();
    entry.sketch.Clear();
  }
}

void BatchAggregates::Add(SessionId session, const Span& span) {
  entries_[OpAggregateKey{session, span.name, span.tag, span.target, span.device}].Add(span);
}

}  // namespace optrace::daemon
