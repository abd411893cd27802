// TailMessageEncoder writes TailResponse bytes by hand; these tests parse
// them with protobuf and hold them to the messages the protobuf API builds
// from the same records, field by field.
#include "live/tail_message_encoder.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "expected_tail_item.h"
#include "live/broadcast_buffer.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;

// Adds every field present in `message` and in the messages it nests.
void CollectPresentFields(const Message& message, std::set<const FieldDescriptor*>* present) {
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    present->insert(field);
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!field->is_repeated()) {
      CollectPresentFields(reflection->GetMessage(message, field), present);
      continue;
    }
    for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
      CollectPresentFields(reflection->GetRepeatedMessage(message, field, i), present);
    }
  }
}

// Fields of the messages a Tail stream sends that it leaves out by design.
constexpr const char* kFieldsTailNeverWrites[] = {
    "optrace.v1.Span.node",   // fleet query results only
    "optrace.v1.Span.label",  // fleet query results only
};

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

  v1::TailResponse Expected(const LiveRecord& r) const {
    return testing::ExpectedTailItem(r, strings_, labels_);
  }

  // A span record with every value set; an ok span's 0 ns durations.
  LiveRecord OkSpan() const {
    LiveRecord r = Complete();
    r.type = LiveRecordType::kSpan;
    r.kind = static_cast<uint8_t>(SpanStatus::kOk);
    r.duration_ns = 0;
    r.children_ns = 0;
    r.device_ns = 0;
    r.known = kLiveDeviceDurationKnown;
    r.complete_tid = 2;
    return r;
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
  const LiveRecord span = OkSpan();
  encoder_.Begin(true);
  encoder_.AddLag(123);
  encoder_.AddRecord(Complete());
  encoder_.AddRecord(span);
  EXPECT_EQ(encoder_.items(), 3);
  const v1::TailResponse parsed = Parse(encoder_.TakeMessage());

  v1::TailResponse expected;
  v1::TailBatch* batch = expected.mutable_batch();
  *batch->add_items() = testing::ExpectedLagItem(123);
  *batch->add_items() = Expected(Complete());
  *batch->add_items() = Expected(span);
  ExpectEqual(parsed, expected);
  EXPECT_EQ(parsed.batch().items(0).lag().message(), "lagged, 123 live items skipped");
  EXPECT_TRUE(parsed.batch().items(2).span().has_duration_ns()) << "an ok span's 0 ns";
}

// A tailed span's self time: its duration less its children's time.
TEST_F(TailMessageEncoderTest, SpanWithChildren_SelfTimeIsDurationLessChildren) {
  LiveRecord span = OkSpan();
  span.duration_ns = 9000;
  span.children_ns = 6500;
  encoder_.Begin(false);
  ASSERT_TRUE(encoder_.AddRecord(span));
  const v1::TailResponse parsed = Parse(encoder_.TakeMessage());
  ExpectEqual(parsed, Expected(span));
  EXPECT_EQ(parsed.span().self_ns(), 2500u);
}

TEST_F(TailMessageEncoderTest, LongestTexts_LoneItemWithinMaxItemBytesBatchStopsAtItsBound) {
  const uint32_t long_label = labels_.Append(std::string(abi::kLabelBytes - 1, 'l'));
  LiveRecord event = Complete();
  event.ts_ns = -5;
  event.op_id = event.parent_op_id = ~uint64_t{0};
  event.label = long_label;
  event.name = event.tag = event.srcloc = long_;
  event.device_ns = ~uint64_t{0};
  event.duration_ns = ~uint64_t{0};
  event.known = kLiveDurationKnown | kLiveDeviceDurationKnown;
  LiveRecord span = OkSpan();
  span.label = long_label;
  span.name = span.tag = span.srcloc = long_;
  span.ts_ns = -5;
  span.op_id = span.parent_op_id = ~uint64_t{0};
  for (const LiveRecord& r : {event, span}) {
    encoder_.Begin(false);
    ASSERT_TRUE(encoder_.AddRecord(r)) << "a lone message always takes its item";
    EXPECT_LE(encoder_.TakeMessage().size(), TailMessageEncoder::MaxMessageBytes(false));
  }
  encoder_.Begin(true);
  int added = 0;
  while (encoder_.AddRecord(added % 2 == 0 ? event : span)) ++added;
  EXPECT_GT(added, 1);
  EXPECT_EQ(encoder_.items(), added) << "the refused record was not appended";
  const EncodedTailMessage message = encoder_.TakeMessage();
  EXPECT_LE(message.size(), TailMessageEncoder::MaxMessageBytes(true));
  EXPECT_GT(message.size() + TailMessageEncoder::kMaxItemBytes,
            TailMessageEncoder::MaxMessageBytes(true))
      << "it stopped only when the next item would not fit";
  EXPECT_EQ(Parse(message).batch().items_size(), added);
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

// Built from the schema: a field added to any message a Tail stream sends
// (TailResponse and every message it nests) fails here until the encoder
// writes it for records that set every value.
TEST_F(TailMessageEncoderTest, Schema_EveryFieldOfEveryTailMessage_Written) {
  LiveRecord complete = Complete();
  complete.device_ns = 800;
  complete.known = kLiveDurationKnown | kLiveDeviceDurationKnown;
  LiveRecord counter;
  counter.type = LiveRecordType::kInstant;
  counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
  counter.value = -3;
  counter.level = static_cast<uint8_t>(abi::LevelValue::kDebug);
  LiveRecord span = OkSpan();
  span.duration_ns = 1500;
  span.device_ns = 700;

  std::set<const FieldDescriptor*> present;
  // Each item alone and in a batch, parsed back by protobuf.
  const auto collect = [&](bool batch, auto add_item) {
    encoder_.Begin(batch);
    add_item();
    CollectPresentFields(Parse(encoder_.TakeMessage()), &present);
  };
  for (const bool batch : {false, true}) {
    for (const LiveRecord& r : {complete, counter, span}) {
      collect(batch, [&] { encoder_.AddRecord(r); });
    }
    collect(batch, [&] { encoder_.AddLag(4); });
  }

  std::set<std::string> not_written(std::begin(kFieldsTailNeverWrites),
                                    std::end(kFieldsTailNeverWrites));
  for (const std::string& name : not_written) {
    EXPECT_NE(DescriptorPool::generated_pool()->FindFieldByName(name), nullptr)
        << name << " is no field any more: remove it from kFieldsTailNeverWrites";
  }
  std::set<const Descriptor*> walked;
  std::vector<const Descriptor*> to_walk = {v1::TailResponse::descriptor()};
  while (!to_walk.empty()) {
    const Descriptor* message = to_walk.back();
    to_walk.pop_back();
    if (!walked.insert(message).second) continue;
    for (int i = 0; i < message->field_count(); ++i) {
      const FieldDescriptor* field = message->field(i);
      if (field->message_type() != nullptr) to_walk.push_back(field->message_type());
      if (not_written.count(field->full_name()) != 0) continue;
      EXPECT_TRUE(present.count(field) != 0) << field->full_name() << " (field " << field->number()
                                             << ") is never written by TailMessageEncoder";
    }
  }
  for (const Descriptor* message :
       {v1::TailBatch::descriptor(), v1::LiveEvent::descriptor(), v1::Device::descriptor(),
        v1::Span::descriptor(), v1::Lag::descriptor()}) {
    EXPECT_TRUE(walked.count(message) != 0) << message->full_name() << " was not walked";
  }
}

}  // namespace
}  // namespace optrace::daemon
