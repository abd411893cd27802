// The conversions between the daemon's model and live records: every
// field lands, the session's fields are left alone, and a span comes back
// as it went in.
#include "live/live_record_conversions.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>

#include "optrace/abi.h"
#include "store_test_data.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

// A record whose session's fields are set, as TailHub's RecordFor makes it.
LiveRecord SessionRecord() {
  LiveRecord r;
  r.session = 7;
  r.pid = 4242;
  r.uid = 1000;
  r.label = 3;
  return r;
}

void ExpectSessionFieldsKept(const LiveRecord& r) {
  EXPECT_EQ(r.session, 7u);
  EXPECT_EQ(r.pid, 4242u);
  EXPECT_EQ(r.uid, 1000u);
  EXPECT_EQ(r.label, 3u);
}

TEST(LiveRecordConversionsTest, Span_RoundTrip_EveryFieldBack) {
  // Random values of every field, extremes of each range included.
  std::mt19937_64 rng(20251201);
  for (const Span& span : testing::RandomSpans(rng, 500)) {
    LiveRecord record = SessionRecord();
    SpanToLiveRecord(span, &record);
    EXPECT_EQ(record.type, LiveRecordType::kSpan);
    ExpectSessionFieldsKept(record);
    const Span back = SpanFromLiveRecord(record);
    ASSERT_EQ(back, span);

    // And as the API shows it: the same message, field for field.
    const std::string text = "t";
    const StringLookup lookup = [&](StringId) -> const std::string& { return text; };
    v1::Span expected, actual;
    ToProto(span, 7, lookup, &expected);
    ToProto(back, 7, lookup, &actual);
    ASSERT_TRUE(google::protobuf::util::MessageDifferencer::Equals(expected, actual))
        << actual.DebugString();
  }
}

TEST(LiveRecordConversionsTest, Span_Fields_LandWhereTheEncoderReadsThem) {
  LiveRecord r;
  SpanToLiveRecord(testing::MakeSpan(42, -103, 1, 5000, SpanStatus::kDuplicate), &r);
  EXPECT_EQ(r.op_id, 42u);
  EXPECT_EQ(r.ts_ns, -103) << "its start";
  EXPECT_EQ(r.tid, 4242u) << "the LAUNCH's thread";
  EXPECT_EQ(r.complete_tid, 0u);
  EXPECT_EQ(r.kind, static_cast<uint8_t>(SpanStatus::kDuplicate));
  EXPECT_EQ(r.known, kLiveDeviceDurationKnown);
  EXPECT_EQ(r.device_ns, 2500u);
}

TEST(LiveRecordConversionsTest, Half_EveryField_Copied) {
  HalfOp half = testing::MakeHalf(202, static_cast<uint8_t>(abi::EventKind::kComplete));
  half.target = static_cast<uint8_t>(abi::TargetKind::kOther);
  ASSERT_TRUE(half.has_device_ns);
  LiveRecord r = SessionRecord();
  HalfToLiveRecord(half, 212, &r);
  ExpectSessionFieldsKept(r);
  EXPECT_EQ(r.type, LiveRecordType::kHalf);
  EXPECT_EQ(
      std::tie(r.op_id, r.kind, r.ts_ns, r.parent_op_id, r.device_ns, r.name, r.tag, r.srcloc,
               r.tid, r.stream, r.device, r.target),
      std::tie(half.op_id, half.kind, half.ts_ns, half.parent_op_id, half.device_ns, half.name,
               half.tag, half.srcloc, half.tid, half.stream, half.device, half.target));
  EXPECT_EQ(r.duration_ns, 212u);
  EXPECT_EQ(r.known, kLiveDurationKnown | kLiveDeviceDurationKnown);

  // A LAUNCH: no duration yet, no device duration.
  half.kind = static_cast<uint8_t>(abi::EventKind::kLaunch);
  half.has_device_ns = false;
  half.device_ns = 0;
  HalfToLiveRecord(half, std::nullopt, &r);
  EXPECT_EQ(r.duration_ns, 0u);
  EXPECT_EQ(r.known, 0u);
}

TEST(LiveRecordConversionsTest, Instant_EveryField_Copied) {
  Instant instant;
  instant.ts_ns = -301;
  instant.parent_op_id = 302;
  instant.value = -303;
  instant.name = 304;
  instant.tag = 305;
  instant.tid = 306;
  instant.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
  instant.level = static_cast<uint8_t>(abi::LevelValue::kDebug);
  LiveRecord r = SessionRecord();
  InstantToLiveRecord(instant, &r);
  ExpectSessionFieldsKept(r);
  EXPECT_EQ(r.type, LiveRecordType::kInstant);
  EXPECT_EQ(r.ts_ns, -301);
  EXPECT_EQ(r.parent_op_id, 302u);
  EXPECT_EQ(r.value, -303);
  EXPECT_EQ(r.name, 304u);
  EXPECT_EQ(r.tag, 305u);
  EXPECT_EQ(r.tid, 306u);
  EXPECT_EQ(r.kind, instant.kind);
  EXPECT_EQ(r.level, instant.level);
  EXPECT_EQ(r.op_id, 0u) << "an instant has no op";
}

}  // namespace
}  // namespace optrace::daemon
