// libFuzzer target: live records, lag markers and texts made from
// arbitrary bytes, encoded by TailMessageEncoder (which writes through
// proto_wire's FieldCursor) and parsed back with
// v1::TailResponse::ParseFromArray. The bytes must parse and hold exactly
// the records' values, as the protobuf-built reference of the encoder's
// unit tests has them. Fuzz builds check FieldCursor's room, so an event
// that outgrows the room the encoder counted for it stops the run.
//
// Input: a flags byte (bit 0: one batch, else one message an item; bits
// 1-3: how many texts), that many pairs of a string and a label (each a
// little-endian u16 length and its bytes), then items until the input
// ends: a byte (0 mod 4: a lag of the next 8 bytes; else a record of the
// next sizeof(LiveRecord) bytes as they lie in memory).
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "expected_tail_item.h"
#include "live/tail_message_encoder.h"
#include "optrace/reader/text_sanitizer.h"

namespace {

using namespace optrace::daemon;
using optrace::v1::TailResponse;

// Reads the fuzz input front to back; past its end every value is 0.
class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : data_(data), left_(size) {}
  bool empty() const { return left_ == 0; }

  // The next sizeof(T) bytes as a T. REQUIRES: T is trivially copyable.
  template <typename T>
  T Value() {
    T value{};
    const size_t n = std::min(sizeof value, left_);
    std::memcpy(&value, data_, n);
    data_ += n, left_ -= n;
    return value;
  }
  // At most `max` bytes as a text.
  std::string Text(size_t max) {
    const size_t n = std::min({static_cast<size_t>(Value<uint16_t>()), max, left_});
    std::string text(reinterpret_cast<const char*>(data_), n);
    data_ += n, left_ -= n;
    return text;
  }

 private:
  const uint8_t* data_;
  size_t left_;
};

// Up to 4 KiB a text: room enough for a length past two bytes' worth.
constexpr size_t kMaxText = 4096;
// Ids 0 to kMaxIds - 1 (beyond the published ones they read as "").
constexpr uint32_t kMaxIds = 8;

// A record of any bytes, but for its type (made one of the three), its
// string ids (below kMaxIds) and `known` (its two bits).
LiveRecord RecordFrom(InputReader& in) {
  LiveRecord r = in.Value<LiveRecord>();
  r.type = static_cast<LiveRecordType>(1 + static_cast<uint8_t>(r.type) % 3);
  r.name %= kMaxIds;
  r.tag %= kMaxIds;
  r.srcloc %= kMaxIds;
  r.label %= kMaxIds;
  r.known &= kLiveDurationKnown | kLiveDeviceDurationKnown;
  return r;
}

[[noreturn]] void Mismatch(const TailResponse& expected, const TailResponse& parsed) {
  std::fprintf(stderr, "encoded:\n%s\nexpected:\n%s\n", parsed.DebugString().c_str(),
               expected.DebugString().c_str());
  std::abort();
}

// The message parsed back with protobuf must be `expected`.
void Check(const EncodedTailMessage& message, const TailResponse& expected) {
  const std::string bytes = message.head + message.body;
  TailResponse parsed;
  if (!parsed.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    std::fprintf(stderr, "the encoder's %zu bytes do not parse\n", bytes.size());
    std::abort();
  }
  if (!google::protobuf::util::MessageDifferencer::Equals(expected, parsed)) {
    Mismatch(expected, parsed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  InputReader in(data, size);
  const uint8_t flags = in.Value<uint8_t>();
  const bool batch = (flags & 1) != 0;
  PublishedStrings strings, labels;
  strings.Append("");
  labels.Append("");
  // Texts as the daemon holds them: sanitized by the segment reader, so
  // valid UTF-8 (which proto3 strings must be to parse).
  for (int i = 0, n = (flags >> 1) % kMaxIds; i < n; ++i) {
    strings.Append(optrace::reader::SanitizeText(in.Text(kMaxText)));
    labels.Append(optrace::reader::SanitizeText(in.Text(kMaxText)));
  }

  TailMessageEncoder encoder(LiveSource{nullptr, &strings, &labels});
  TailResponse expected_batch;
  if (batch) encoder.Begin(true);
  for (int items = 0; !in.empty() && items < 64; ++items) {
    if (!batch) encoder.Begin(false);
    TailResponse expected;
    if (in.Value<uint8_t>() % 4 == 0) {
      const auto skipped = in.Value<uint64_t>();
      encoder.AddLag(skipped);
      expected = optrace::daemon::testing::ExpectedLagItem(skipped);
    } else {
      const LiveRecord record = RecordFrom(in);
      encoder.AddRecord(record);
      expected = optrace::daemon::testing::ExpectedTailItem(record, strings, labels);
    }
    if (batch) {
      *expected_batch.mutable_batch()->add_items() = std::move(expected);
    } else {
      Check(encoder.TakeMessage(), expected);
    }
  }
  if (batch) {
    if (encoder.items() != expected_batch.batch().items_size()) std::abort();
    // An empty batch is the message with an empty batch in it.
    expected_batch.mutable_batch();
    Check(encoder.TakeMessage(), expected_batch);
  }
  return 0;
}
