#include "live/tail_subscription.h"

#include <re2/re2.h>

namespace optrace::daemon {
namespace {

constexpr uint8_t kTrace = static_cast<uint8_t>(abi::LevelValue::kTrace);

}  // namespace

TailSubscription::TailSubscription(Filter filter, LiveSource source, uint64_t start)
    : filter_(std::move(filter)), source_(source), cursor_(start) {}

TailSubscription::~TailSubscription() = default;

bool TailSubscription::CoversProducer(const SessionRecord& s) const {
  if (filter_.uid && *filter_.uid != s.uid) return false;
  if (filter_.session != 0 && filter_.session != s.id) return false;
  if (filter_.pid != 0 && filter_.pid != s.pid) return false;
  if (!filter_.label.empty() && filter_.label != s.label) return false;
  return true;
}

bool TailSubscription::CoversRecord(const LiveRecord& r) const {
  if (filter_.uid && *filter_.uid != r.uid) return false;
  if (filter_.session != 0 && filter_.session != r.session) return false;
  if (filter_.pid != 0 && filter_.pid != r.pid) return false;
  if (!filter_.label.empty() && filter_.label != source_.labels->Text(r.label)) return false;
  return true;
}

bool TailSubscription::NameMatches(StringId name, StringId tag) {
  if (filter_.pattern == nullptr) return true;
  for (StringId id : {name, tag}) {
    auto [it, inserted] = match_cache_.try_emplace(id, false);
    if (inserted) {
      it->second = re2::RE2::PartialMatch(source_.strings->Text(id), *filter_.pattern);
    }
    if (it->second) return true;
  }
  return false;
}

bool TailSubscription::Wants(const LiveRecord& r) {
  const auto level = static_cast<uint8_t>(filter_.level);
  switch (r.type) {
    case LiveRecordType::kHalf:
      if (!filter_.events || level < kTrace) return false;
      if (filter_.target != 0 && filter_.target != r.target) return false;
      if (filter_.device && *filter_.device != r.device) return false;
      // With a minimum duration only COMPLETEs known to be long enough
      // are shown.
      if (filter_.min_duration_ns != 0 &&
          ((r.known & kLiveDurationKnown) == 0 || r.duration_ns < filter_.min_duration_ns)) {
        return false;
      }
      break;
    case LiveRecordType::kInstant:
      if (!filter_.events || level < r.level || filter_.min_duration_ns != 0 ||
          filter_.target != 0 || filter_.device) {
        return false;
      }
      break;
    case LiveRecordType::kSpan:
      if (!filter_.spans || level < kTrace) return false;
      if (filter_.target != 0 && filter_.target != r.target) return false;
      if (filter_.device && *filter_.device != r.device) return false;
      if (r.duration_ns < filter_.min_duration_ns) return false;
      break;
    default:
      return false;
  }
  return CoversRecord(r) && NameMatches(r.name, r.tag);
}

bool TailSubscription::Next(bool batch, TailMessageEncoder& out) {
  out.Begin(batch);
  constexpr size_t kChunk = 64;
  LiveRecord records[kChunk];
  const int limit = batch ? kMaxBatchItems : 1;
  int items = 0;
  bool full = false;  // the next record passes the message's byte bound
  while (items < limit && !full) {
    const BroadcastBuffer::Span span = source_.records->Read(cursor_, records, kChunk);
    lost_pending_ += span.first - cursor_;
    skipped_total_ += span.first - cursor_;
    cursor_ = span.first;
    if (lost_pending_ > 0) {
      out.AddLag(lost_pending_);
      lost_pending_ = 0;
      if (!batch) return true;
    }
    if (span.count == 0) break;
    size_t k = 0;
    for (; k < span.count && items < limit; ++k) {
      if (!Wants(records[k])) continue;
      if (!out.AddRecord(records[k])) {
        full = true;
        break;
      }
      ++items;
      ++delivered_;
    }
    cursor_ = span.first + k;
  }
  return out.items() > 0;
}

}  // namespace optrace::daemon
