#include "api/tail_message_encoder.h"

#include "api/proto_convert.h"
#include "api/proto_wire.h"

namespace optrace::daemon {
namespace {

using proto_wire::AppendBytesField;
using proto_wire::AppendVarintField;

// Field numbers of optrace.v1 (proto/optrace/v1/optrace.proto).
namespace response_field {
constexpr uint32_t kEvent = 1, kSpan = 2, kLag = 3, kBatch = 4;
}
constexpr uint32_t kBatchItems = 1;
namespace event_field {
constexpr uint32_t kSessionId = 1, kPid = 2, kLabel = 3, kKind = 4, kOpId = 5, kParentOpId = 6,
                   kName = 7, kTag = 8, kSourceLocation = 9, kDevice = 10, kUnixNs = 11,
                   kThread = 12, kDeviceDurationNs = 13, kValue = 14, kLevel = 15, kDurationNs = 16;
}
namespace device_field {
constexpr uint32_t kTarget = 1, kOrdinal = 2, kStream = 3;
}
namespace lag_field {
constexpr uint32_t kSkipped = 1, kMessage = 2;
}

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);

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

// Proto3 leaves out a scalar or string field that holds its default.
void PutVarint(std::string& out, uint32_t field, uint64_t value) {
  if (value != 0) AppendVarintField(out, field, value);
}
void PutText(std::string& out, uint32_t field, const std::string& text) {
  if (!text.empty()) AppendBytesField(out, field, text);
}

}  // namespace

TailMessageEncoder::TailMessageEncoder(const LiveSource& source)
    : strings_(*source.strings), labels_(*source.labels) {}

void TailMessageEncoder::Begin(bool batch) {
  batch_ = batch;
  items_ = 0;
  body_.clear();
  // The body leaves with each message, so each starts from nothing: room
  // for a typical full batch at once (1024 items of about 110 bytes), not
  // a dozen doublings and copies, and below glibc's mmap threshold, so
  // that it comes from the heap and not from fresh pages each time.
  body_.reserve(batch ? kBatchBodyReserve : kItemBodyReserve);
}

void TailMessageEncoder::AppendItem(uint32_t field) {
  ++items_;
  // In a batch, the item is a TailResponse of its own: its length first.
  if (batch_) {
    proto_wire::AppendLengthPrefix(body_, kBatchItems,
                                   proto_wire::LengthDelimitedSize(field, inner_.size()));
  }
  AppendBytesField(body_, field, inner_);
}

void TailMessageEncoder::EncodeEvent(const LiveRecord& r) {
  namespace f = event_field;
  std::string& out = inner_;
  out.clear();
  PutVarint(out, f::kSessionId, r.session);
  PutVarint(out, f::kPid, r.pid);
  PutText(out, f::kLabel, labels_.Text(r.label));
  PutVarint(out, f::kKind, KindToProto(r.kind));
  const bool instant = r.type == LiveRecordType::kInstant;
  if (!instant) PutVarint(out, f::kOpId, r.op_id);
  PutVarint(out, f::kParentOpId, r.parent_op_id);
  PutText(out, f::kName, strings_.Text(r.name));
  PutText(out, f::kTag, strings_.Text(r.tag));
  if (!instant) {
    PutText(out, f::kSourceLocation, strings_.Text(r.srcloc));
    // A half always carries its device, even gpu-less and all zero.
    std::string device;
    PutVarint(device, device_field::kTarget, TargetToProto(r.target));
    PutVarint(device, device_field::kOrdinal, r.device);
    PutVarint(device, device_field::kStream, r.stream);
    AppendBytesField(out, f::kDevice, device);
  }
  PutVarint(out, f::kUnixNs, static_cast<uint64_t>(r.ts_ns));
  PutVarint(out, f::kThread, r.tid);
  if (instant) {
    if (r.kind != kMark) PutVarint(out, f::kValue, static_cast<uint64_t>(r.value));
    PutVarint(out, f::kLevel, LevelToProto(static_cast<abi::LevelValue>(r.level)));
    return;
  }
  // Optional fields: present exactly when known, 0 ns included.
  if ((r.known & kLiveDeviceDurationKnown) != 0) {
    AppendVarintField(out, f::kDeviceDurationNs, r.device_ns);
  }
  PutVarint(out, f::kLevel, v1::LEVEL_TRACE);
  if ((r.known & kLiveDurationKnown) != 0) AppendVarintField(out, f::kDurationNs, r.duration_ns);
}

void TailMessageEncoder::EncodeSpan(const LiveRecord& r) {
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
  span_.Clear();
  ToProto(
      span, r.session, [&](StringId id) -> const std::string& { return strings_.Text(id); },
      &span_);
  inner_.clear();
  span_.AppendToString(&inner_);
}

void TailMessageEncoder::AddRecord(const LiveRecord& r) {
  const bool span = r.type == LiveRecordType::kSpan;
  if (span) {
    EncodeSpan(r);
  } else {
    EncodeEvent(r);
  }
  AppendItem(span ? response_field::kSpan : response_field::kEvent);
}

void TailMessageEncoder::AddLag(uint64_t skipped) {
  inner_.clear();
  PutVarint(inner_, lag_field::kSkipped, skipped);
  AppendBytesField(inner_, lag_field::kMessage,
                   "lagged, " + std::to_string(skipped) + " live items skipped");
  AppendItem(response_field::kLag);
}

EncodedTailMessage TailMessageEncoder::TakeMessage() {
  EncodedTailMessage message;
  if (batch_) proto_wire::AppendLengthPrefix(message.head, response_field::kBatch, body_.size());
  // A message may wait long in flight (a client that does not read): it
  // keeps what it holds, not the room reserved for a full batch.
  if (body_.capacity() > 2 * body_.size() + kItemBodyReserve) body_.shrink_to_fit();
  message.body.swap(body_);
  items_ = 0;
  return message;
}

}  // namespace optrace::daemon
