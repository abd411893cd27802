#include "live/live_publisher.h"

#include <algorithm>

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
  r.kind = half.kind;
  r.op_id = half.op_id;
  r.parent_op_id = half.parent_op_id;
  r.ts_ns = half.ts_ns;
  r.duration_ns = duration_ns.value_or(0);
  r.device_ns = half.device_ns;
  r.known = static_cast<uint8_t>((duration_ns ? kLiveDurationKnown : 0) |
                                 (half.has_device_ns ? kLiveDeviceDurationKnown : 0));
  r.name = half.name;
  r.tag = half.tag;
  r.srcloc = half.srcloc;
  r.tid = half.tid;
  r.stream = half.stream;
  r.device = half.device;
  r.target = half.target;
  PublishStrings(std::max({half.name, half.tag, half.srcloc}), strings);
  Publish(r);
}

void LivePublisher::OnInstant(const SessionRecord& session, const Instant& instant,
                              const StringDictionary& strings) {
  if (!events_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kInstant);
  r.kind = instant.kind;
  r.level = instant.level;
  r.parent_op_id = instant.parent_op_id;
  r.ts_ns = instant.ts_ns;
  r.value = instant.value;
  r.name = instant.name;
  r.tag = instant.tag;
  r.tid = instant.tid;
  PublishStrings(std::max(instant.name, instant.tag), strings);
  Publish(r);
}

void LivePublisher::OnSpan(const SessionRecord& session, const Span& span,
                           const StringDictionary& strings) {
  if (!spans_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kSpan);
  r.kind = static_cast<uint8_t>(span.status);
  r.op_id = span.op_id;
  r.parent_op_id = span.parent_op_id;
  r.ts_ns = span.start_ns;
  r.duration_ns = span.duration_ns;
  r.device_ns = span.device_ns;
  r.known = span.has_device_ns ? kLiveDeviceDurationKnown : 0;
  r.name = span.name;
  r.tag = span.tag;
  r.srcloc = span.srcloc;
  r.tid = span.launch_tid;
  r.complete_tid = span.complete_tid;
  r.stream = span.stream;
  r.device = span.device;
  r.target = span.target;
  PublishStrings(std::max({span.name, span.tag, span.srcloc}), strings);
  Publish(r);
}

}  // namespace optrace::daemon
