#include "expected_tail_item.h"

#include <algorithm>
#include <string>

#include "optrace/abi.h"
#include "wire/proto_convert.h"

namespace optrace::daemon::testing {
namespace {

// A LiveEvent's kind: the ABI's kinds have the proto's numbers.
v1::LiveEvent::Kind ExpectedKind(uint8_t kind) {
  if (kind > abi::kMaxEventKind) return v1::LiveEvent::KIND_UNSPECIFIED;
  return static_cast<v1::LiveEvent::Kind>(kind);
}

void SetDevice(const LiveRecord& r, v1::Device* device) {
  device->set_target(TargetToProto(r.target));
  device->set_ordinal(r.device);
  device->set_stream(r.stream);
}

void SetSpan(const LiveRecord& r, const PublishedStrings& strings, v1::Span* span) {
  const auto status = static_cast<SpanStatus>(r.kind);
  span->set_session_id(r.session);
  span->set_op_id(r.op_id);
  span->set_parent_op_id(r.parent_op_id);
  span->set_name(strings.Text(r.name));
  span->set_tag(strings.Text(r.tag));
  span->set_source_location(strings.Text(r.srcloc));
  SetDevice(r, span->mutable_device());
  span->set_start_unix_ns(r.ts_ns);
  // A duration only for a paired span; a device duration when measured.
  if (status == SpanStatus::kOk) {
    span->set_duration_ns(r.duration_ns);
    span->set_self_ns(r.duration_ns - std::min(r.children_ns, r.duration_ns));
  }
  if ((r.known & kLiveDeviceDurationKnown) != 0) span->set_device_duration_ns(r.device_ns);
  span->set_launch_thread(r.tid);
  span->set_complete_thread(r.complete_tid);
  span->set_status(StatusToProto(status));
}

void SetEvent(const LiveRecord& r, const PublishedStrings& strings, const PublishedStrings& labels,
              v1::LiveEvent* e) {
  e->set_session_id(r.session);
  e->set_pid(r.pid);
  e->set_label(labels.Text(r.label));
  e->set_kind(ExpectedKind(r.kind));
  e->set_parent_op_id(r.parent_op_id);
  e->set_name(strings.Text(r.name));
  e->set_tag(strings.Text(r.tag));
  e->set_unix_ns(r.ts_ns);
  e->set_thread(r.tid);
  if (r.type == LiveRecordType::kInstant) {
    if (r.kind != static_cast<uint8_t>(abi::EventKind::kMark)) e->set_value(r.value);
    e->set_level(LevelToProto(static_cast<abi::LevelValue>(r.level)));
    return;
  }
  // A half: its op, where it ran (always, even all zero) and its durations
  // when known; halves are traced at LEVEL_TRACE.
  e->set_op_id(r.op_id);
  e->set_source_location(strings.Text(r.srcloc));
  SetDevice(r, e->mutable_device());
  if ((r.known & kLiveDeviceDurationKnown) != 0) e->set_device_duration_ns(r.device_ns);
  e->set_level(v1::LEVEL_TRACE);
  if ((r.known & kLiveDurationKnown) != 0) e->set_duration_ns(r.duration_ns);
}

}  // namespace

v1::TailResponse ExpectedTailItem(const LiveRecord& record, const PublishedStrings& strings,
                                  const PublishedStrings& labels) {
  v1::TailResponse item;
  if (record.type == LiveRecordType::kSpan) {
    SetSpan(record, strings, item.mutable_span());
  } else {
    SetEvent(record, strings, labels, item.mutable_event());
  }
  return item;
}

v1::TailResponse ExpectedLagItem(uint64_t skipped) {
  v1::TailResponse item;
  item.mutable_lag()->set_skipped(skipped);
  item.mutable_lag()->set_message("lagged, " + std::to_string(skipped) + " live items skipped");
  return item;
}

}  // namespace optrace::daemon::testing
