#include "wire/proto_convert.h"

#include <algorithm>

#include "optrace/v1/level_numbers.h"
#include "optrace/v1/target_numbers.h"

namespace optrace::daemon {

static_assert(static_cast<int>(v1::LEVEL_TRACE) ==
                  static_cast<int>(abi::LevelValue::kTrace) + v1::kLevelOffset,
              "every level of the proto is the ABI's plus the offset");

void ToProto(const Span& span, SessionId session, const StringLookup& strings, v1::Span* out) {
  out->set_session_id(session);
  out->set_op_id(span.op_id);
  out->set_parent_op_id(span.parent_op_id);
  out->set_name(strings(span.name));
  out->set_tag(strings(span.tag));
  out->set_source_location(strings(span.srcloc));
  v1::Device* device = out->mutable_device();
  device->set_target(TargetToProto(span.target));
  device->set_ordinal(span.device);
  device->set_stream(span.stream);
  out->set_start_unix_ns(span.start_ns);
  if (const auto duration = KnownDuration(span)) {
    out->set_duration_ns(*duration);
    out->set_self_ns(SelfNs(span));
  }
  if (const auto device_ns = KnownDeviceDuration(span)) out->set_device_duration_ns(*device_ns);
  out->set_launch_thread(span.launch_tid);
  out->set_complete_thread(span.complete_tid);
  out->set_status(StatusToProto(span.status));
}

void ToProto(const KeepRecord& keep, v1::Keep* out) {
  out->set_session_id(keep.session);
  out->set_first_unix_ns(keep.first_ns);
  out->set_last_unix_ns(keep.last_ns);
  out->set_reason(keep.reason);
  out->set_bytes(keep.bytes);
  out->set_created_unix_ns(keep.created_ns);
}

void ToProto(const SessionRecord& record, v1::Session* out) {
  out->set_id(record.id);
  out->set_label(record.label);
  out->set_pid(record.pid);
  out->set_uid(record.uid);
  out->set_pid_unverified(!record.pid_verified);
  out->set_executable(record.executable);
  out->set_command_line(record.command_line);
  out->set_start_unix_ns(record.start_ns);
  out->set_end_unix_ns(record.end_ns);
  out->set_state(StateToProto(record.state));
  out->set_events(record.events);
  out->set_spans(record.spans);
  out->set_instants(record.instants);
  out->set_open_ops(record.open_ops);
  out->set_full_ring_wait_ns(record.full_ring_wait_ns);
  out->set_full_ring_wait_timeouts(record.full_ring_wait_timeouts);
  v1::Listings* listings = out->mutable_listings();
  listings->set_stored(record.listings.shipped);  // what the drain handed the store
  listings->set_refused(record.listings.refused);
  listings->set_dropped(record.listings.dropped);
  listings->set_capped(record.listings.capped);
  v1::Drops* drops = out->mutable_drops();
  drops->set_ring_full(record.dropped_ring_full);
  drops->set_no_ring(record.dropped_no_ring);
  drops->set_shed(record.dropped_shed);
  drops->set_daemon_restart(record.dropped_daemon_restart);
  drops->set_invalid(record.dropped_invalid);
  // Every lost event is in exactly one cause; strings are not events.
  drops->set_total(record.dropped_ring_full + record.dropped_no_ring + record.dropped_shed +
                   record.dropped_daemon_restart + record.dropped_invalid);
  drops->set_strings(record.strings_dropped);
  drops->set_names_capped(record.names_capped);
  out->set_spans_trimmed(record.trim.spans);
  out->set_instants_trimmed(record.trim.instants);
  out->set_trimmed_before_unix_ns(record.trim.before_ns);
  if (record.window.overridden) ToProto(record.window.limits, true, out->mutable_window());
}

void ToProto(const WindowLimits& limits, bool own, v1::Window* out) {
  out->set_keep_last_ns(static_cast<uint64_t>(std::max<int64_t>(limits.keep_last_ns, 0)));
  out->set_keep_last_bytes(limits.keep_last_bytes);
  out->set_own(own);
}

v1::Target TargetToProto(uint8_t target_kind) {
  if (target_kind > abi::kMaxTargetKind) return v1::TARGET_UNSPECIFIED;
  return v1::TargetFromKind(static_cast<abi::TargetKind>(target_kind));
}

v1::SpanStatus StatusToProto(SpanStatus status) {
  switch (status) {
    case SpanStatus::kOk:
      return v1::SPAN_STATUS_OK;
    case SpanStatus::kIncomplete:
      return v1::SPAN_STATUS_INCOMPLETE;
    case SpanStatus::kCompleteWithoutLaunch:
      return v1::SPAN_STATUS_COMPLETE_WITHOUT_LAUNCH;
    case SpanStatus::kDuplicate:
      return v1::SPAN_STATUS_DUPLICATE;
  }
  return v1::SPAN_STATUS_UNSPECIFIED;
}

v1::SessionState StateToProto(SessionState state) {
  switch (state) {
    case SessionState::kRunning:
      return v1::SESSION_STATE_RUNNING;
    case SessionState::kExited:
      return v1::SESSION_STATE_EXITED;
    case SessionState::kCrashed:
      return v1::SESSION_STATE_CRASHED;
  }
  return v1::SESSION_STATE_UNSPECIFIED;
}

v1::Level LevelToProto(abi::LevelValue level) {
  const int value = static_cast<int>(level);
  if (value > abi::kMaxLevel) return v1::LEVEL_UNSPECIFIED;
  return static_cast<v1::Level>(value + v1::kLevelOffset);
}

std::optional<abi::LevelValue> LevelFromProto(v1::Level level) {
  const int value = static_cast<int>(level) - v1::kLevelOffset;
  if (value < 0 || value > abi::kMaxLevel) return std::nullopt;
  return static_cast<abi::LevelValue>(value);
}

std::optional<abi::TargetKind> TargetFromProto(v1::Target target) {
  const std::optional<abi::TargetKind> kind = v1::KindFromTarget(target);
  if (kind == abi::TargetKind::kNone) return std::nullopt;
  return kind;
}

std::optional<SpanStatus> StatusFromProto(v1::SpanStatus status) {
  switch (status) {
    case v1::SPAN_STATUS_OK:
      return SpanStatus::kOk;
    case v1::SPAN_STATUS_INCOMPLETE:
      return SpanStatus::kIncomplete;
    case v1::SPAN_STATUS_COMPLETE_WITHOUT_LAUNCH:
      return SpanStatus::kCompleteWithoutLaunch;
    case v1::SPAN_STATUS_DUPLICATE:
      return SpanStatus::kDuplicate;
    default:
      return std::nullopt;
  }
}

}  // namespace optrace::daemon
