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

  // Starts a message: one item, or, when `batch`, a TailBatch of items.
  void Begin(bool batch);
  // Appends the record as an item: a LiveEvent (halves and instants) or a
  // Span. REQUIRES: not a lone message that already has its item.
  void AddRecord(const LiveRecord& record);
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
  void EncodeEvent(const LiveRecord& r);
  void EncodeSpan(const LiveRecord& r);

  static constexpr size_t kBatchBodyReserve = 128 << 10;
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
