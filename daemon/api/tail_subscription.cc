#include "api/tail_subscription.h"

#include <re2/re2.h>

#include "api/proto_convert.h"

namespace optrace::daemon {
namespace {

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);
constexpr uint8_t kTrace = static_cast<uint8_t>(abi::LevelValue::kTrace);

v1::LiveEvent::Kind KindToProto(uint8_t kind) {
  switch (kind) {
    case 1:
      return v1::LiveEvent::KIND_LAUNCH;
    case 2:
      return v1::LiveEvent::KIND_COMPLETE;
    case 3:
      return v1::LiveEvent::KIND_MARK;
    case 4:
      return v1::LiveEvent::KIND_COUNTER;
    default:
      return v1::LiveEvent::KIND_UNSPECIFIED;
  }
}

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

void TailSubscription::Build(const LiveRecord& r, v1::TailResponse* item) const {
  const PublishedStrings& strings = *source_.strings;
  if (r.type == LiveRecordType::kSpan) {
    Span span;
    span.op_id = r.op_id;
    span.parent_op_id = r.parent_op_id;
    span.start_ns = r.ts_ns;
    span.duration_ns = r.duration_ns;
    span.device_ns = r.device_ns;
    span.has_device_ns = (r.known & kLiveDeviceDurationKnown) != 0;
    span.name = r.name;
    span.tag = r.tag;
    span.srcloc = r.srcloc;
    span.launch_tid = r.tid;
    span.complete_tid = r.complete_tid;
    span.stream = r.stream;
    span.device = r.device;
    span.target = r.target;
    span.status = static_cast<SpanStatus>(r.kind);
    ToProto(
        span, r.session, [&](StringId id) -> const std::string& { return strings.Text(id); },
        item->mutable_span());
    return;
  }
  v1::LiveEvent* e = item->mutable_event();
  e->set_session_id(r.session);
  e->set_pid(r.pid);
  e->set_label(source_.labels->Text(r.label));
  e->set_kind(KindToProto(r.kind));
  e->set_parent_op_id(r.parent_op_id);
  e->set_name(strings.Text(r.name));
  e->set_tag(strings.Text(r.tag));
  e->set_unix_ns(r.ts_ns);
  e->set_thread(r.tid);
  if (r.type == LiveRecordType::kInstant) {
    if (r.kind != kMark) e->set_value(r.value);
    e->set_level(LevelToProto(static_cast<abi::LevelValue>(r.level)));
    return;
  }
  e->set_op_id(r.op_id);
  e->set_source_location(strings.Text(r.srcloc));
  e->mutable_device()->set_target(TargetToProto(r.target));
  e->mutable_device()->set_ordinal(r.device);
  e->mutable_device()->set_stream(r.stream);
  if ((r.known & kLiveDeviceDurationKnown) != 0) e->set_device_duration_ns(r.device_ns);
  e->set_level(v1::LEVEL_TRACE);
  if ((r.known & kLiveDurationKnown) != 0) e->set_duration_ns(r.duration_ns);
}

bool TailSubscription::Next(bool batch, v1::TailResponse* out) {
  out->Clear();
  constexpr size_t kChunk = 64;
  LiveRecord records[kChunk];
  const int limit = batch ? kMaxBatchItems : 1;
  int items = 0;
  auto report_lag = [&](v1::TailResponse* item) {
    item->mutable_lag()->set_skipped(lost_pending_);
    item->mutable_lag()->set_message("lagged, " + std::to_string(lost_pending_) +
                                     " live items skipped");
    lost_pending_ = 0;
  };
  while (items < limit) {
    const BroadcastBuffer::Span span = source_.records->Read(cursor_, records, kChunk);
    lost_pending_ += span.first - cursor_;
    skipped_total_ += span.first - cursor_;
    cursor_ = span.first;
    if (lost_pending_ > 0) {
      if (!batch) {
        report_lag(out);
        return true;
      }
      report_lag(out->mutable_batch()->add_items());
    }
    if (span.count == 0) break;
    size_t k = 0;
    for (; k < span.count && items < limit; ++k) {
      if (!Wants(records[k])) continue;
      Build(records[k], batch ? out->mutable_batch()->add_items() : out);
      ++items;
      ++delivered_;
    }
    cursor_ = span.first + k;
  }
  return items > 0 || (batch && out->batch().items_size() > 0);
}

}  // namespace optrace::daemon
