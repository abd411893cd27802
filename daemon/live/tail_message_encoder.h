// The TailResponse messages a Tail stream sends, written in the protobuf
// wire format straight from live records: no protobuf object per item, no
// allocation per string. The bytes parse as v1::TailResponse; the unit
// tests hold them to the messages the protobuf API builds from the same
// records.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_MESSAGE_ENCODER_H_
#define OPTRACE_DAEMON_LIVE_TAIL_MESSAGE_ENCODER_H_

#include <cstdint>
#include <string>

#include "live/live_record.h"
#include "live/live_source.h"
#include "optrace/abi.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// A finished TailResponse: `head` then `body`, sent as two slices so that
// the batch's items are never copied behind its length prefix.
struct EncodedTailMessage {
  std::string head;
  std::string body;
  size_t size() const { return head.size() + body.size(); }
};

// Thread rules: one thread at a time (the stream that owns it).
// Begin, then items, then TakeMessage; repeat.
class TailMessageEncoder {
 public:
  // Resolves ids through `source.strings` and `source.labels`, which must
  // outlive the encoder.
  explicit TailMessageEncoder(const LiveSource& source);

  // The most one item takes: its four texts (label, name, tag, source
  // location) at their longest, and its other fields.
  static constexpr size_t kMaxItemBytes = 4 * abi::kMaxStringBytes + 1024;
  // The most a TailBatch message takes. At most the smallest
  // max_bytes_in_flight_per_uid the config allows, so that a stream can
  // reserve a whole message before it builds one (TailReactor).
  static constexpr size_t kMaxBatchBytes = 64 << 10;
  static_assert(abi::kLabelBytes <= abi::kMaxStringBytes && kMaxItemBytes < kMaxBatchBytes);

  // The most a message takes, whatever its records: kMaxBatchBytes for a
  // batch, kMaxItemBytes for a lone item.
  static constexpr size_t MaxMessageBytes(bool batch) {
    return batch ? kMaxBatchBytes : kMaxItemBytes;
  }

  // Starts a message: one item, or, when `batch`, a TailBatch of items.
  void Begin(bool batch);
  // Appends the record as an item: a LiveEvent (halves and instants) or a
  // Span, unless the message holds items already and this one would take
  // it past MaxMessageBytes: then returns false and appends nothing.
  // REQUIRES: not a lone message that already has its item.
  bool AddRecord(const LiveRecord& record);
  // Appends a Lag item of `skipped` live items. Same REQUIRES.
  void AddLag(uint64_t skipped);
  // The items added since Begin.
  int items() const { return items_; }
  // The finished message; the encoder is empty until the next Begin.
  EncodedTailMessage TakeMessage();

 private:
  // Appends `inner_` to the message as the item's field `field` (an
  // event, a span or a lag marker).
  void AppendItem(uint32_t field);
  // The message's size with `inner_` appended as the item's field `field`.
  size_t SizeWith(uint32_t field) const;
  void EncodeEvent(const LiveRecord& r);
  void EncodeSpan(const LiveRecord& r);

  static constexpr size_t kBatchBodyReserve = kMaxBatchBytes;
  static constexpr size_t kItemBodyReserve = 256;

  const PublishedStrings& strings_;
  const PublishedStrings& labels_;
  bool batch_ = false;
  int items_ = 0;
  std::string body_;   // the message, or the batch's items
  std::string inner_;  // one item's LiveEvent, Span or Lag
  v1::Span span_;      // reused: spans go through the one Span conversion
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_MESSAGE_ENCODER_H_
