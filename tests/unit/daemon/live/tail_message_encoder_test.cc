// TailMessageEncoder writes TailResponse bytes by hand; these tests parse
// them with protobuf and hold them to the messages the protobuf API builds
// from the same records, field by field.
#include "live/tail_message_encoder.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <string>

#include "live/broadcast_buffer.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

using google::protobuf::util::MessageDifferencer;

class TailMessageEncoderTest : public ::testing::Test {
 protected:
  TailMessageEncoderTest() {
    strings_.Append("");
    name_ = strings_.Append("matmul");
    tag_ = strings_.Append("matmul_128x256x512_f32");
    srcloc_ = strings_.Append("model.py:42");
    long_ = strings_.Append(std::string(4096, 'x'));
    labels_.Append("");
    label_ = labels_.Append("trainer-rank-0");
  }

  v1::TailResponse Parse(const EncodedTailMessage& message) {
    v1::TailResponse parsed;
    EXPECT_TRUE(parsed.ParseFromString(message.head + message.body));
    return parsed;
  }

  LiveRecord Complete() const {
    LiveRecord r;
    r.type = LiveRecordType::kHalf;
    r.kind = static_cast<uint8_t>(abi::EventKind::kComplete);
    r.session = 7;
    r.pid = 4242;
    r.label = label_;
    r.op_id = 40028;
    r.parent_op_id = 40027;
    r.name = name_;
    r.tag = tag_;
    r.srcloc = srcloc_;
    r.target = static_cast<uint8_t>(abi::TargetKind::kGpu);
    r.device = 1;
    r.stream = 3;
    r.ts_ns = 1'764'590'000'123'456'789;
    r.tid = 99;
    r.duration_ns = 1500;
    r.known = kLiveDurationKnown;
    return r;
  }

  // What the record is as a TailResponse, built with the protobuf API.
  v1::TailResponse Expected(const LiveRecord& r) const {
    v1::TailResponse item;
    v1::LiveEvent* e = item.mutable_event();
    e->set_session_id(r.session);
    e->set_pid(r.pid);
    e->set_label(labels_.Text(r.label));
    e->set_kind(static_cast<v1::LiveEvent::Kind>(r.kind));
    e->set_parent_op_id(r.parent_op_id);
    e->set_name(strings_.Text(r.name));
    e->set_tag(strings_.Text(r.tag));
    e->set_unix_ns(r.ts_ns);
    e->set_thread(r.tid);
    if (r.type == LiveRecordType::kInstant) {
      if (r.kind != static_cast<uint8_t>(abi::EventKind::kMark)) e->set_value(r.value);
      e->set_level(LevelToProto(static_cast<abi::LevelValue>(r.level)));
      return item;
    }
    e->set_op_id(r.op_id);
    e->set_source_location(strings_.Text(r.srcloc));
    e->mutable_device()->set_target(TargetToProto(r.target));
    e->mutable_device()->set_ordinal(r.device);
    e->mutable_device()->set_stream(r.stream);
    if ((r.known & kLiveDeviceDurationKnown) != 0) e->set_device_duration_ns(r.device_ns);
    e->set_level(v1::LEVEL_TRACE);
    if ((r.known & kLiveDurationKnown) != 0) e->set_duration_ns(r.duration_ns);
    return item;
  }

  void ExpectEqual(const v1::TailResponse& actual, const v1::TailResponse& expected) {
    std::string why;
    MessageDifferencer differ;
    differ.ReportDifferencesToString(&why);
    EXPECT_TRUE(differ.Compare(expected, actual)) << why;
  }

  PublishedStrings strings_;
  PublishedStrings labels_;
  BroadcastBuffer records_{16};
  StringId name_ = 0, tag_ = 0, srcloc_ = 0, long_ = 0;
  uint32_t label_ = 0;
  TailMessageEncoder encoder_{LiveSource{&records_, &strings_, &labels_}};
};

TEST_F(TailMessageEncoderTest, LoneComplete_ParsesAsTheProtobufBuiltEvent) {
  encoder_.Begin(false);
  encoder_.AddRecord(Complete());
  EXPECT_EQ(encoder_.items(), 1);
  ExpectEqual(Parse(encoder_.TakeMessage()), Expected(Complete()));
  EXPECT_EQ(encoder_.items(), 0) << "taken: the encoder is empty";
}

TEST_F(TailMessageEncoderTest, Durations_PresentExactlyWhenKnownZeroIncluded) {
  LiveRecord zero = Complete();
  zero.duration_ns = 0;
  zero.device_ns = 0;
  zero.known = kLiveDurationKnown | kLiveDeviceDurationKnown;
  LiveRecord launch = Complete();
  launch.kind = static_cast<uint8_t>(abi::EventKind::kLaunch);
  launch.duration_ns = 0;
  launch.known = 0;
  for (const LiveRecord& r : {zero, launch}) {
    encoder_.Begin(false);
    encoder_.AddRecord(r);
    const v1::TailResponse parsed = Parse(encoder_.TakeMessage());
    ExpectEqual(parsed, Expected(r));
    EXPECT_EQ(parsed.event().has_duration_ns(), r.known != 0);
    EXPECT_EQ(parsed.event().has_device_duration_ns(), r.known != 0);
  }
}

TEST_F(TailMessageEncoderTest, EdgeValues_NegativeTimeLongTextsZeroDevice) {
  LiveRecord r = Complete();
  r.ts_ns = -5;  // before the epoch: a 10-byte varint
  r.op_id = ~uint64_t{0};
  r.name = long_;
  r.tag = long_;
  r.target = 0;
  r.device = 0;
  r.stream = 0;
  r.label = 0;  // no label
  encoder_.Begin(false);
  encoder_.AddRecord(r);
  const v1::TailResponse parsed = Parse(encoder_.TakeMessage());
  ExpectEqual(parsed, Expected(r));
  EXPECT_TRUE(parsed.event().has_device()) << "a half always carries its device";
  EXPECT_EQ(parsed.event().unix_ns(), -5);
  EXPECT_EQ(parsed.event().name().size(), 4096u);
}

TEST_F(TailMessageEncoderTest, Instants_MarkWithoutValueCounterWithItsValueAndLevel) {
  LiveRecord mark;
  mark.type = LiveRecordType::kInstant;
  mark.kind = static_cast<uint8_t>(abi::EventKind::kMark);
  mark.session = 3;
  mark.name = name_;
  mark.value = 12;  // not shown for a mark
  mark.level = static_cast<uint8_t>(abi::LevelValue::kInfo);
  mark.ts_ns = 1000;
  LiveRecord counter = mark;
  counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
  counter.value = -77;
  counter.level = static_cast<uint8_t>(abi::LevelValue::kDebug);
  for (const LiveRecord& r : {mark, counter}) {
    encoder_.Begin(false);
    encoder_.AddRecord(r);
    const v1::TailResponse parsed = Parse(encoder_.TakeMessage());
    ExpectEqual(parsed, Expected(r));
    EXPECT_FALSE(parsed.event().has_device());
  }
}

TEST_F(TailMessageEncoderTest, Batch_LagEventsAndSpanInOrder) {
  LiveRecord span;
  span.type = LiveRecordType::kSpan;
  span.kind = static_cast<uint8_t>(SpanStatus::kOk);
  span.session = 7;
  span.op_id = 5;
  span.name = name_;
  span.tag = tag_;
  span.srcloc = srcloc_;
  span.ts_ns = 2000;
  span.duration_ns = 0;
  span.device_ns = 0;
  span.known = kLiveDeviceDurationKnown;
  span.tid = 1;
  span.complete_tid = 2;
  span.target = static_cast<uint8_t>(abi::TargetKind::kCpu);

  encoder_.Begin(true);
  encoder_.AddLag(123);
  encoder_.AddRecord(Complete());
  encoder_.AddRecord(span);
  EXPECT_EQ(encoder_.items(), 3);
  const v1::TailResponse parsed = Parse(encoder_.TakeMessage());

  v1::TailResponse expected;
  v1::TailBatch* batch = expected.mutable_batch();
  v1::Lag* lag = batch->add_items()->mutable_lag();
  lag->set_skipped(123);
  lag->set_message("lagged, 123 live items skipped");
  *batch->add_items() = Expected(Complete());
  Span stored;
  stored.op_id = 5;
  stored.name = name_;
  stored.tag = tag_;
  stored.srcloc = srcloc_;
  stored.start_ns = 2000;
  stored.has_device_ns = true;
  stored.launch_tid = 1;
  stored.complete_tid = 2;
  stored.target = span.target;
  ToProto(
      stored, 7, [&](StringId id) -> const std::string& { return strings_.Text(id); },
      batch->add_items()->mutable_span());
  ExpectEqual(parsed, expected);
  EXPECT_TRUE(parsed.batch().items(2).span().has_duration_ns()) << "an ok span's 0 ns";
}

TEST_F(TailMessageEncoderTest, BeginAgain_StartsAFreshMessage) {
  encoder_.Begin(true);
  encoder_.AddRecord(Complete());
  encoder_.Begin(false);
  encoder_.AddLag(1);
  const v1::TailResponse parsed = Parse(encoder_.TakeMessage());
  ASSERT_TRUE(parsed.has_lag());
  EXPECT_EQ(parsed.lag().skipped(), 1u);
}

}  // namespace
}  // namespace optrace::daemon
