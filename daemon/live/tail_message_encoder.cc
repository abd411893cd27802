#include "live/tail_message_encoder.h"

#include <cstring>
#include <string_view>

#include "wire/proto_convert.h"
#include "wire/proto_wire.h"

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

// Proto3 leaves out a scalar or text field that holds its default.
void PutNonZero(proto_wire::FieldCursor& out, uint32_t field, uint64_t value) {
  if (value != 0) out.PutVarintField(field, value);
}
void PutText(proto_wire::FieldCursor& out, uint32_t field, std::string_view text) {
  if (!text.empty()) out.PutBytesField(field, text);
}

// The most a Device takes (three varint fields), and a LiveEvent besides
// the bytes of its four texts: eleven varint fields, the keys and lengths
// of four texts and of the Device, and the Device.
constexpr size_t kDeviceBytes = 3 * proto_wire::FieldCursor::kMaxFieldBytes;
constexpr size_t kEventBytesBesideTexts =
    (11 + 5) * proto_wire::FieldCursor::kMaxFieldBytes + kDeviceBytes;

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
  const bool instant = r.type == LiveRecordType::kInstant;
  const std::string& label = labels_.Text(r.label);
  const std::string& name = strings_.Text(r.name);
  const std::string& tag = strings_.Text(r.tag);
  const std::string_view srcloc = instant ? std::string_view() : strings_.Text(r.srcloc);
  inner_.resize(kEventBytesBesideTexts + label.size() + name.size() + tag.size() + srcloc.size());
  proto_wire::FieldCursor out(inner_.data());
  PutNonZero(out, f::kSessionId, r.session);
  PutNonZero(out, f::kPid, r.pid);
  PutText(out, f::kLabel, label);
  PutNonZero(out, f::kKind, KindToProto(r.kind));
  if (!instant) PutNonZero(out, f::kOpId, r.op_id);
  PutNonZero(out, f::kParentOpId, r.parent_op_id);
  PutText(out, f::kName, name);
  PutText(out, f::kTag, tag);
  if (!instant) {
    PutText(out, f::kSourceLocation, srcloc);
    // A half always carries its device, even gpu-less and all zero.
    char device[kDeviceBytes];
    proto_wire::FieldCursor fields(device);
    PutNonZero(fields, device_field::kTarget, TargetToProto(r.target));
    PutNonZero(fields, device_field::kOrdinal, r.device);
    PutNonZero(fields, device_field::kStream, r.stream);
    out.PutBytesField(f::kDevice,
                      std::string_view(device, static_cast<size_t>(fields.at() - device)));
  }
  PutNonZero(out, f::kUnixNs, static_cast<uint64_t>(r.ts_ns));
  PutNonZero(out, f::kThread, r.tid);
  if (instant) {
    if (r.kind != kMark) PutNonZero(out, f::kValue, static_cast<uint64_t>(r.value));
    PutNonZero(out, f::kLevel, LevelToProto(static_cast<abi::LevelValue>(r.level)));
  } else {
    // Optional fields: present exactly when known, 0 ns included.
    if ((r.known & kLiveDeviceDurationKnown) != 0) {
      out.PutVarintField(f::kDeviceDurationNs, r.device_ns);
    }
    PutNonZero(out, f::kLevel, v1::LEVEL_TRACE);
    if ((r.known & kLiveDurationKnown) != 0) out.PutVarintField(f::kDurationNs, r.duration_ns);
  }
  inner_.resize(static_cast<size_t>(out.at() - inner_.data()));
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
  AppendVarintField(inner_, lag_field::kSkipped, skipped);
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
