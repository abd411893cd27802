#include "live/live_publisher.h"

#include <algorithm>

#include "live/live_record_conversions.h"

namespace optrace::daemon {

LivePublisher::LivePublisher(BroadcastBuffer& records, PublishedStrings& strings,
                             PublishedStrings& labels, TailParking& parking)
    : records_(records), strings_(strings), labels_(labels), parking_(parking) {}

void LivePublisher::SetWanted(bool events, bool spans) {
  events_wanted_.store(events, std::memory_order_relaxed);
  spans_wanted_.store(spans, std::memory_order_relaxed);
  active_.store(events || spans, std::memory_order_relaxed);
}

LiveRecord LivePublisher::RecordFor(const SessionRecord& session, LiveRecordType type) {
  if (session.id != last_session_) {
    // Once per change of session, not per record: sessions come in runs.
    auto [it, inserted] = label_ids_.try_emplace(session.label, 0);
    if (inserted) it->second = labels_.Append(session.label);
    last_session_ = session.id;
    last_label_ = it->second;
  }
  LiveRecord r;
  r.type = type;
  r.session = session.id;
  r.pid = session.pid;
  r.uid = session.uid;
  r.label = last_label_;
  return r;
}

void LivePublisher::PublishStrings(StringId max_id, const StringDictionary& strings) {
  // Ids are dense (the dictionary hands them out in order): each is copied
  // once, the first time a record needs it.
  while (strings_.size() <= max_id) strings_.Append(strings.Text(strings_.size()));
}

void LivePublisher::Publish(const LiveRecord& record) {
  records_.Append(record);
  parking_.Published();
}

void LivePublisher::OnHalf(const SessionRecord& session, const HalfOp& half,
                           std::optional<uint64_t> duration_ns, const StringDictionary& strings) {
  if (!events_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kHalf);
  HalfToLiveRecord(half, duration_ns, &r);
  PublishStrings(std::max({half.name, half.tag, half.srcloc}), strings);
  Publish(r);
}

void LivePublisher::OnInstant(const SessionRecord& session, const Instant& instant,
                              const StringDictionary& strings) {
  if (!events_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kInstant);
  InstantToLiveRecord(instant, &r);
  PublishStrings(std::max(instant.name, instant.tag), strings);
  Publish(r);
}

void LivePublisher::OnSpan(const SessionRecord& session, const Span& span,
                           const StringDictionary& strings) {
  if (!spans_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kSpan);
  SpanToLiveRecord(span, &r);
  PublishStrings(std::max({span.name, span.tag, span.srcloc}), strings);
  Publish(r);
}

}  // namespace optrace::daemon
