// TailSubscription over a real BroadcastBuffer and string tables: which
// records pass its filter, what it reports when the writer overtook it,
// and which producers it covers. The bytes it encodes are parsed back with
// protobuf.
#include "live/tail_subscription.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "live/broadcast_buffer.h"
#include "live/published_strings.h"
#include "live/tail_message_encoder.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {
namespace {

constexpr size_t kCapacity = 64;

class TailSubscriptionTest : public ::testing::Test {
 protected:
  TailSubscriptionTest() : records_(kCapacity) {
    strings_.Append("");
    matmul_ = strings_.Append("matmul");
    matmul_tag_ = strings_.Append("matmul_128x256x512_f32");
    softmax_ = strings_.Append("softmax");
    labels_.Append("");
    trainer_ = labels_.Append("trainer");
  }

  // A COMPLETE half of op `op_id` of session 1 (pid 100, uid 1000, label
  // "trainer"), a matmul on cpu:0 that took `duration_ns`.
  LiveRecord Complete(uint64_t op_id, uint64_t duration_ns = 1000) const {
    LiveRecord r;
    r.type = LiveRecordType::kHalf;
    r.kind = static_cast<uint8_t>(abi::EventKind::kComplete);
    r.session = 1;
    r.pid = 100;
    r.uid = 1000;
    r.label = trainer_;
    r.op_id = op_id;
    r.name = matmul_;
    r.tag = matmul_tag_;
    r.target = static_cast<uint8_t>(abi::TargetKind::kCpu);
    r.duration_ns = duration_ns;
    r.known = kLiveDurationKnown;
    return r;
  }

  LiveSource Source() const { return LiveSource{&records_, &strings_, &labels_}; }

  // What one Next(batch = true) delivers, as parsed items (a lone item
  // when the message is not a batch); empty when Next found nothing.
  std::vector<v1::TailResponse> NextItems(TailSubscription& subscription, bool batch = true) {
    TailMessageEncoder encoder(Source());
    if (!subscription.Next(batch, encoder)) return {};
    const EncodedTailMessage message = encoder.TakeMessage();
    v1::TailResponse parsed;
    EXPECT_TRUE(parsed.ParseFromString(message.head + message.body));
    if (!parsed.has_batch()) return {parsed};
    return {parsed.batch().items().begin(), parsed.batch().items().end()};
  }

  // The op ids of the events among `items`.
  static std::vector<uint64_t> OpIds(const std::vector<v1::TailResponse>& items) {
    std::vector<uint64_t> ids;
    for (const auto& item : items) {
      if (item.has_event()) ids.push_back(item.event().op_id());
    }
    return ids;
  }

  BroadcastBuffer records_;
  PublishedStrings strings_;
  PublishedStrings labels_;
  StringId matmul_ = 0;
  StringId matmul_tag_ = 0;
  StringId softmax_ = 0;
  uint32_t trainer_ = 0;
};

TEST_F(TailSubscriptionTest, ReadsOnlyWhatIsPublishedAfterItStarts) {
  records_.Append(Complete(1));
  TailSubscription subscription({}, Source(), records_.published());
  EXPECT_TRUE(NextItems(subscription).empty()) << "nothing new yet";
  records_.Append(Complete(2));
  records_.Append(Complete(3));
  EXPECT_EQ(OpIds(NextItems(subscription)), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(subscription.delivered(), 2u);
  EXPECT_EQ(subscription.cursor(), 3u);
  EXPECT_TRUE(NextItems(subscription).empty());
}

TEST_F(TailSubscriptionTest, FilterKeepsOnlyMatchingRecords) {
  TailSubscription::Filter filter;
  filter.pattern = std::make_unique<re2::RE2>("^mat");
  filter.target = static_cast<uint8_t>(abi::TargetKind::kCpu);
  filter.device = 0;
  filter.min_duration_ns = 500;
  filter.label = "trainer";
  TailSubscription subscription(std::move(filter), Source(), 0);

  records_.Append(Complete(1));  // passes
  LiveRecord other_name = Complete(2);
  other_name.name = softmax_;
  other_name.tag = softmax_;
  records_.Append(other_name);
  LiveRecord gpu = Complete(3);
  gpu.target = static_cast<uint8_t>(abi::TargetKind::kGpu);
  records_.Append(gpu);
  LiveRecord other_device = Complete(4);
  other_device.device = 1;
  records_.Append(other_device);
  records_.Append(Complete(5, 100));  // too short
  LiveRecord unknown_duration = Complete(6);
  unknown_duration.known = 0;  // a COMPLETE without its LAUNCH
  records_.Append(unknown_duration);
  LiveRecord no_label = Complete(7);
  no_label.label = 0;
  records_.Append(no_label);
  records_.Append(Complete(8));  // passes

  EXPECT_EQ(OpIds(NextItems(subscription)), (std::vector<uint64_t>{1, 8}));
  EXPECT_EQ(subscription.delivered(), 2u);
  EXPECT_EQ(subscription.skipped(), 0u) << "filtered records are not lost ones";
}

TEST_F(TailSubscriptionTest, TagPatternMatchesToo) {
  TailSubscription::Filter filter;
  filter.pattern = std::make_unique<re2::RE2>("128x256");
  TailSubscription subscription(std::move(filter), Source(), 0);
  records_.Append(Complete(1));
  LiveRecord softmax = Complete(2);
  softmax.name = softmax_;
  softmax.tag = softmax_;
  records_.Append(softmax);
  EXPECT_EQ(OpIds(NextItems(subscription)), (std::vector<uint64_t>{1}));
}

TEST_F(TailSubscriptionTest, SpansOnlyWhenAsked) {
  LiveRecord span = Complete(9);
  span.type = LiveRecordType::kSpan;
  span.kind = 0;
  TailSubscription events_only({}, Source(), 0);
  TailSubscription::Filter spans_filter;
  spans_filter.events = false;
  spans_filter.spans = true;
  TailSubscription spans_only(std::move(spans_filter), Source(), 0);
  records_.Append(Complete(1));
  records_.Append(span);

  EXPECT_EQ(OpIds(NextItems(events_only)), (std::vector<uint64_t>{1}));
  const std::vector<v1::TailResponse> items = NextItems(spans_only);
  ASSERT_EQ(items.size(), 1u);
  ASSERT_TRUE(items[0].has_span());
  EXPECT_EQ(items[0].span().op_id(), 9u);
}

TEST_F(TailSubscriptionTest, OvertakenReaderGetsOneLagItemFirst) {
  TailSubscription subscription({}, Source(), 0);
  const uint64_t total = 3 * kCapacity + 3;  // the writer laps the reader
  for (uint64_t id = 1; id <= total; ++id) records_.Append(Complete(id));

  const std::vector<v1::TailResponse> items = NextItems(subscription);
  ASSERT_FALSE(items.empty());
  ASSERT_TRUE(items[0].has_lag());
  const uint64_t lost = items[0].lag().skipped();
  EXPECT_GE(lost, total - kCapacity);
  std::vector<uint64_t> expected;
  for (uint64_t id = lost + 1; id <= total; ++id) expected.push_back(id);
  EXPECT_EQ(OpIds(items), expected) << "what was not lost follows, in order";
  EXPECT_EQ(subscription.skipped(), lost);
  EXPECT_EQ(subscription.delivered(), total - lost);
  EXPECT_TRUE(NextItems(subscription).empty()) << "the lag is reported once";
}

TEST_F(TailSubscriptionTest, LoneMessagesSendTheLagByItself) {
  TailSubscription subscription({}, Source(), 0);
  for (uint64_t id = 1; id <= 2 * kCapacity; ++id) records_.Append(Complete(id));
  std::vector<v1::TailResponse> first = NextItems(subscription, /*batch=*/false);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(first[0].has_lag());
  EXPECT_EQ(first[0].lag().skipped(), subscription.skipped());
  std::vector<v1::TailResponse> second = NextItems(subscription, /*batch=*/false);
  ASSERT_EQ(second.size(), 1u);
  ASSERT_TRUE(second[0].has_event());
  EXPECT_EQ(second[0].event().op_id(), subscription.skipped() + 1);
}

TEST_F(TailSubscriptionTest, BatchOfSmallItems_HoldsAtMostItsItemLimit) {
  BroadcastBuffer big(4096);
  TailSubscription subscription({}, LiveSource{&big, &strings_, &labels_}, 0);
  const int total = TailSubscription::kMaxBatchItems + 10;
  for (int id = 1; id <= total; ++id) {
    LiveRecord small = Complete(static_cast<uint64_t>(id));
    small.tag = 0;  // about 45 bytes: 1024 of them take less than a batch's bytes
    small.label = 0;
    big.Append(small);
  }
  TailMessageEncoder encoder(LiveSource{&big, &strings_, &labels_});
  ASSERT_TRUE(subscription.Next(true, encoder));
  EXPECT_EQ(encoder.items(), TailSubscription::kMaxBatchItems);
  EXPECT_EQ(subscription.cursor(), static_cast<uint64_t>(TailSubscription::kMaxBatchItems));
  encoder.TakeMessage();
  ASSERT_TRUE(subscription.Next(true, encoder));
  EXPECT_EQ(encoder.items(), 10);
}

TEST_F(TailSubscriptionTest, BatchOfLargeItems_StopsAtItsByteBoundRestInTheNext) {
  BroadcastBuffer big(4096);
  const StringId long_name = strings_.Append(std::string(2000, 'n'));
  TailSubscription subscription({}, LiveSource{&big, &strings_, &labels_}, 0);
  const int total = 100;  // about 200 KB: several batches
  for (int id = 1; id <= total; ++id) {
    LiveRecord large = Complete(static_cast<uint64_t>(id));
    large.name = long_name;
    big.Append(large);
  }
  TailMessageEncoder encoder(LiveSource{&big, &strings_, &labels_});
  uint64_t next_op = 1;
  int messages = 0;
  while (subscription.Next(true, encoder)) {
    ++messages;
    const EncodedTailMessage message = encoder.TakeMessage();
    EXPECT_LE(message.size(), TailMessageEncoder::MaxMessageBytes(true));
    v1::TailResponse parsed;
    ASSERT_TRUE(parsed.ParseFromString(message.head + message.body));
    for (const v1::TailResponse& item : parsed.batch().items()) {
      EXPECT_EQ(item.event().op_id(), next_op++) << "none skipped, none twice";
    }
  }
  EXPECT_EQ(next_op, static_cast<uint64_t>(total) + 1);
  EXPECT_GE(messages, 3);
  EXPECT_EQ(subscription.cursor(), static_cast<uint64_t>(total));
}

TEST_F(TailSubscriptionTest, CoversProducersOfItsScopeAndUidOnly) {
  SessionRecord session;
  session.id = 1;
  session.pid = 100;
  session.uid = 1000;
  session.label = "trainer";

  TailSubscription::Filter own;
  own.uid = 1000;
  EXPECT_TRUE(TailSubscription(std::move(own), Source(), 0).CoversProducer(session));
  TailSubscription::Filter other_uid;
  other_uid.uid = 1001;
  EXPECT_FALSE(TailSubscription(std::move(other_uid), Source(), 0).CoversProducer(session));
  TailSubscription::Filter other_session;
  other_session.session = 2;
  EXPECT_FALSE(TailSubscription(std::move(other_session), Source(), 0).CoversProducer(session));
  TailSubscription::Filter other_label;
  other_label.label = "server";
  EXPECT_FALSE(TailSubscription(std::move(other_label), Source(), 0).CoversProducer(session));

  // A uid-limited tail never delivers another uid's records either.
  TailSubscription::Filter limited;
  limited.uid = 1001;
  TailSubscription subscription(std::move(limited), Source(), 0);
  records_.Append(Complete(1));
  EXPECT_TRUE(NextItems(subscription).empty());
}

}  // namespace
}  // namespace optrace::daemon
