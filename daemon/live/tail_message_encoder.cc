#include "live/tail_message_encoder.h"

#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "live/live_record_conversions.h"
#include "wire/proto_convert.h"
#include "wire/proto_wire.h"

namespace optrace::daemon {
namespace {

using proto_wire::AppendBytesField;
using proto_wire::AppendVarintField;
using proto_wire::MaxLengthPrefixSize;
using proto_wire::VarintFieldSize;
using Event = v1::LiveEvent;
using Device = v1::Device;

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);

Event::Kind KindToProto(uint8_t kind) {
  switch (static_cast<abi::EventKind>(kind)) {
    case abi::EventKind::kLaunch:
      return Event::KIND_LAUNCH;
    case abi::EventKind::kComplete:
      return Event::KIND_COMPLETE;
    case abi::EventKind::kMark:
      return Event::KIND_MARK;
    case abi::EventKind::kCounter:
      return Event::KIND_COUNTER;
  }
  return Event::KIND_UNSPECIFIED;
}

// Proto3 leaves out a scalar or text field that holds its default.
void PutNonZero(proto_wire::FieldCursor& out, uint32_t field, uint64_t value) {
  if (value != 0) out.PutVarintField(field, value);
}
void PutText(proto_wire::FieldCursor& out, uint32_t field, std::string_view text) {
  if (!text.empty()) out.PutBytesField(field, text);
}

// The most a varint field takes whose value is a T (a negative one is
// written as its 64-bit two's complement, 10 bytes).
template <typename T>
constexpr size_t MaxVarintFieldSize(uint32_t field) {
  if constexpr (std::is_signed_v<T>) {
    return VarintFieldSize(field, ~uint64_t{0});
  } else {
    return VarintFieldSize(field, std::numeric_limits<T>::max());
  }
}

// The most a Device takes: its three fields at their largest.
constexpr size_t kDeviceBytes =
    VarintFieldSize(Device::kTargetFieldNumber, v1::Target_MAX) +
    MaxVarintFieldSize<decltype(LiveRecord::device)>(Device::kOrdinalFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::stream)>(Device::kStreamFieldNumber);

// The most a LiveEvent takes besides the bytes of its four texts: every
// field EncodeEvent may write, in its order, each at its largest.
constexpr size_t kEventBytesBesideTexts =
    MaxVarintFieldSize<decltype(LiveRecord::session)>(Event::kSessionIdFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::pid)>(Event::kPidFieldNumber) +
    MaxLengthPrefixSize(Event::kLabelFieldNumber) +
    VarintFieldSize(Event::kKindFieldNumber, Event::Kind_MAX) +
    MaxVarintFieldSize<decltype(LiveRecord::op_id)>(Event::kOpIdFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::parent_op_id)>(Event::kParentOpIdFieldNumber) +
    MaxLengthPrefixSize(Event::kNameFieldNumber) + MaxLengthPrefixSize(Event::kTagFieldNumber) +
    MaxLengthPrefixSize(Event::kSourceLocationFieldNumber) +
    proto_wire::LengthDelimitedSize(Event::kDeviceFieldNumber, kDeviceBytes) +
    MaxVarintFieldSize<decltype(LiveRecord::ts_ns)>(Event::kUnixNsFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::tid)>(Event::kThreadFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::device_ns)>(Event::kDeviceDurationNsFieldNumber) +
    MaxVarintFieldSize<decltype(LiveRecord::value)>(Event::kValueFieldNumber) +
    VarintFieldSize(Event::kLevelFieldNumber, v1::Level_MAX) +
    MaxVarintFieldSize<decltype(LiveRecord::duration_ns)>(Event::kDurationNsFieldNumber);
// The enums are counted at their largest value: none may be negative (a
// negative enum takes 10 bytes on the wire).
static_assert(Event::Kind_MIN >= 0 && v1::Target_MIN >= 0 && v1::Level_MIN >= 0);

}  // namespace

TailMessageEncoder::TailMessageEncoder(const LiveSource& source)
    : strings_(*source.strings), labels_(*source.labels) {}

void TailMessageEncoder::Begin(bool batch) {
  batch_ = batch;
  items_ = 0;
  body_.clear();
  // The body leaves with each message, so each starts from nothing: room
  // for a full batch at once (kMaxBatchBytes: about 590 items of 110
  // bytes), not a dozen doublings and copies, and below glibc's mmap
  // threshold, so that it comes from the heap and not from fresh pages
  // each time.
  body_.reserve(batch ? kBatchBodyReserve : kItemBodyReserve);
}

size_t TailMessageEncoder::SizeWith(uint32_t field) const {
  const size_t item = proto_wire::LengthDelimitedSize(field, inner_.size());
  if (!batch_) return item;
  return MaxLengthPrefixSize(v1::TailResponse::kBatchFieldNumber) + body_.size() +
         proto_wire::LengthDelimitedSize(v1::TailBatch::kItemsFieldNumber, item);
}

void TailMessageEncoder::AppendItem(uint32_t field) {
  ++items_;
  // In a batch, the item is a TailResponse of its own: its length first.
  if (batch_) {
    proto_wire::AppendLengthPrefix(body_, v1::TailBatch::kItemsFieldNumber,
                                   proto_wire::LengthDelimitedSize(field, inner_.size()));
  }
  AppendBytesField(body_, field, inner_);
}

void TailMessageEncoder::EncodeEvent(const LiveRecord& r) {
  const bool instant = r.type == LiveRecordType::kInstant;
  const std::string& label = labels_.Text(r.label);
  const std::string& name = strings_.Text(r.name);
  const std::string& tag = strings_.Text(r.tag);
  const std::string_view srcloc = instant ? std::string_view() : strings_.Text(r.srcloc);
  inner_.resize(kEventBytesBesideTexts + label.size() + name.size() + tag.size() + srcloc.size());
  proto_wire::FieldCursor out(inner_.data(), inner_.data() + inner_.size());
  PutNonZero(out, Event::kSessionIdFieldNumber, r.session);
  PutNonZero(out, Event::kPidFieldNumber, r.pid);
  PutText(out, Event::kLabelFieldNumber, label);
  PutNonZero(out, Event::kKindFieldNumber, KindToProto(r.kind));
  if (!instant) PutNonZero(out, Event::kOpIdFieldNumber, r.op_id);
  PutNonZero(out, Event::kParentOpIdFieldNumber, r.parent_op_id);
  PutText(out, Event::kNameFieldNumber, name);
  PutText(out, Event::kTagFieldNumber, tag);
  if (!instant) {
    PutText(out, Event::kSourceLocationFieldNumber, srcloc);
    // A half always carries its device, even gpu-less and all zero.
    char device[kDeviceBytes];
    proto_wire::FieldCursor fields(device, device + sizeof device);
    PutNonZero(fields, Device::kTargetFieldNumber, TargetToProto(r.target));
    PutNonZero(fields, Device::kOrdinalFieldNumber, r.device);
    PutNonZero(fields, Device::kStreamFieldNumber, r.stream);
    out.PutBytesField(Event::kDeviceFieldNumber,
                      std::string_view(device, static_cast<size_t>(fields.at() - device)));
  }
  PutNonZero(out, Event::kUnixNsFieldNumber, static_cast<uint64_t>(r.ts_ns));
  PutNonZero(out, Event::kThreadFieldNumber, r.tid);
  if (instant) {
    if (r.kind != kMark) PutNonZero(out, Event::kValueFieldNumber, static_cast<uint64_t>(r.value));
    PutNonZero(out, Event::kLevelFieldNumber, LevelToProto(static_cast<abi::LevelValue>(r.level)));
  } else {
    // Optional fields: present exactly when known, 0 ns included.
    if ((r.known & kLiveDeviceDurationKnown) != 0) {
      out.PutVarintField(Event::kDeviceDurationNsFieldNumber, r.device_ns);
    }
    PutNonZero(out, Event::kLevelFieldNumber, v1::LEVEL_TRACE);
    if ((r.known & kLiveDurationKnown) != 0)
      out.PutVarintField(Event::kDurationNsFieldNumber, r.duration_ns);
  }
  inner_.resize(static_cast<size_t>(out.at() - inner_.data()));
}

void TailMessageEncoder::EncodeSpan(const LiveRecord& r) {
  span_.Clear();
  ToProto(
      SpanFromLiveRecord(r), r.session,
      [&](StringId id) -> const std::string& { return strings_.Text(id); }, &span_);
  inner_.clear();
  span_.AppendToString(&inner_);
}

bool TailMessageEncoder::AddRecord(const LiveRecord& r) {
  const bool span = r.type == LiveRecordType::kSpan;
  if (span) {
    EncodeSpan(r);
  } else {
    EncodeEvent(r);
  }
  const uint32_t field =
      span ? v1::TailResponse::kSpanFieldNumber : v1::TailResponse::kEventFieldNumber;
  if (items_ > 0 && SizeWith(field) > MaxMessageBytes(batch_)) return false;
  AppendItem(field);
  return true;
}

void TailMessageEncoder::AddLag(uint64_t skipped) {
  inner_.clear();
  AppendVarintField(inner_, v1::Lag::kSkippedFieldNumber, skipped);
  AppendBytesField(inner_, v1::Lag::kMessageFieldNumber,
                   "lagged, " + std::to_string(skipped) + " live items skipped");
  AppendItem(v1::TailResponse::kLagFieldNumber);
}

EncodedTailMessage TailMessageEncoder::TakeMessage() {
  EncodedTailMessage message;
  if (batch_)
    proto_wire::AppendLengthPrefix(message.head, v1::TailResponse::kBatchFieldNumber, body_.size());
  // A message may wait long in flight (a client that does not read): it
  // keeps what it holds, not the room reserved for a full batch.
  if (body_.capacity() > 2 * body_.size() + kItemBodyReserve) body_.shrink_to_fit();
  message.body.swap(body_);
  items_ = 0;
  return message;
}

}  // namespace optrace::daemon
