// The model to proto conversions: every field, enums both ways.
#include "wire/proto_convert.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

TEST(ProtoConvertTest, Span_EveryField_Copied) {
  const std::map<StringId, std::string> texts = {
      {1, "matmul"}, {101, "matmul_f32"}, {201, "model.py:3"}};
  const std::string none;
  const StringLookup lookup = [&](StringId id) -> const std::string& {
    const auto it = texts.find(id);
    return it == texts.end() ? none : it->second;
  };
  const Span span = testing::MakeSpan(42, 1'700'000'000'000'000'123, 1, 5000);
  v1::Span out;
  ToProto(span, 9, lookup, &out);
  EXPECT_EQ(out.session_id(), 9u);
  EXPECT_EQ(out.op_id(), 42u);
  EXPECT_EQ(out.parent_op_id(), 41u);
  EXPECT_EQ(out.name(), "matmul");
  EXPECT_EQ(out.tag(), "matmul_f32");
  EXPECT_EQ(out.source_location(), "model.py:3");
  EXPECT_EQ(out.device().target(), v1::TARGET_GPU);
  EXPECT_EQ(out.device().ordinal(), 1u);
  EXPECT_EQ(out.device().stream(), 7u);
  EXPECT_EQ(out.start_unix_ns(), 1'700'000'000'000'000'123);
  EXPECT_EQ(out.duration_ns(), 5000u);
  EXPECT_EQ(out.device_duration_ns(), 2500u);
  EXPECT_EQ(out.launch_thread(), 4242u);
  EXPECT_EQ(out.complete_thread(), 4243u);
  EXPECT_EQ(out.status(), v1::SPAN_STATUS_OK);
}

TEST(ProtoConvertTest, Issue16_ZeroDurations_PresentAndUnknownOnesAbsent) {
  const StringLookup lookup = [](StringId) -> const std::string& {
    static const std::string none;
    return none;
  };
  Span zero = testing::MakeSpan(1, 100, 1, 0);
  zero.device_ns = 0;
  zero.has_device_ns = true;
  v1::Span out;
  ToProto(zero, 9, lookup, &out);
  EXPECT_TRUE(out.has_duration_ns());
  EXPECT_EQ(out.duration_ns(), 0u);
  EXPECT_TRUE(out.has_device_duration_ns());
  EXPECT_EQ(out.device_duration_ns(), 0u);

  Span lone = testing::MakeSpan(2, 100, 1, 0, SpanStatus::kCompleteWithoutLaunch);
  lone.has_device_ns = false;
  out.Clear();
  ToProto(lone, 9, lookup, &out);
  EXPECT_FALSE(out.has_duration_ns());
  EXPECT_FALSE(out.has_device_duration_ns());
}

TEST(ProtoConvertTest, Session_Trim_ApartFromDrops) {
  SessionRecord record = testing::MakeSession(3, SessionState::kRunning);
  record.trim = {.spans = 7, .instants = 8, .before_ns = 9};
  v1::Session out;
  ToProto(record, &out);
  EXPECT_EQ(out.spans_trimmed(), 7u);
  EXPECT_EQ(out.instants_trimmed(), 8u);
  EXPECT_EQ(out.trimmed_before_unix_ns(), 9);
  EXPECT_EQ(out.drops().total(), record.dropped_ring_full) << "trimmed spans are not losses";
}

TEST(ProtoConvertTest, Session_ListingCounters_StoredIsShipped) {
  SessionRecord record = testing::MakeSession(3, SessionState::kRunning);
  record.listings = {.shipped = 4, .refused = 3, .dropped = 2, .capped = 1};
  v1::Session out;
  ToProto(record, &out);
  EXPECT_EQ(out.listings().stored(), 4u);
  EXPECT_EQ(out.listings().refused(), 3u);
  EXPECT_EQ(out.listings().dropped(), 2u);
  EXPECT_EQ(out.listings().capped(), 1u);
  EXPECT_EQ(out.drops().total(), record.dropped_ring_full) << "listings are not events";
}

TEST(ProtoConvertTest, Session_DropsTotalIsTheSumOfEventLosses) {
  SessionRecord record = testing::MakeSession(3, SessionState::kCrashed, 100, 200);
  record.dropped_ring_full = 1;
  record.dropped_no_ring = 2;
  record.dropped_shed = 4;
  record.dropped_daemon_restart = 8;
  record.dropped_invalid = 16;
  record.strings_dropped = 1000;
  record.names_capped = 2000;
  record.open_ops = 5;
  v1::Session out;
  ToProto(record, &out);
  EXPECT_EQ(out.id(), 3u);
  EXPECT_EQ(out.label(), "run-3");
  EXPECT_EQ(out.pid(), record.pid);
  EXPECT_EQ(out.uid(), record.uid);
  EXPECT_EQ(out.executable(), record.executable);
  EXPECT_EQ(out.command_line(), record.command_line);
  EXPECT_EQ(out.start_unix_ns(), 100);
  EXPECT_EQ(out.end_unix_ns(), 200);
  EXPECT_EQ(out.state(), v1::SESSION_STATE_CRASHED);
  EXPECT_EQ(out.events(), record.events);
  EXPECT_EQ(out.spans(), record.spans);
  EXPECT_EQ(out.open_ops(), 5u);
  EXPECT_EQ(out.drops().ring_full(), 1u);
  EXPECT_EQ(out.drops().no_ring(), 2u);
  EXPECT_EQ(out.drops().shed(), 4u);
  EXPECT_EQ(out.drops().daemon_restart(), 8u);
  EXPECT_EQ(out.drops().invalid(), 16u);
  EXPECT_EQ(out.drops().total(), 31u) << "strings and capped names are not events";
  EXPECT_EQ(out.drops().strings(), 1000u);
  EXPECT_EQ(out.drops().names_capped(), 2000u);
}

TEST(ProtoConvertTest, Levels_AbiPlusOneBothWays) {
  for (uint8_t v = 0; v <= abi::kMaxLevel; ++v) {
    const auto level = static_cast<abi::LevelValue>(v);
    EXPECT_EQ(LevelToProto(level), static_cast<v1::Level>(v + 1));
    EXPECT_EQ(LevelFromProto(LevelToProto(level)), level);
  }
  EXPECT_EQ(LevelToProto(abi::LevelValue::kTrace), v1::LEVEL_TRACE);
  EXPECT_EQ(LevelToProto(static_cast<abi::LevelValue>(9)), v1::LEVEL_UNSPECIFIED);
  EXPECT_EQ(LevelFromProto(v1::LEVEL_UNSPECIFIED), std::nullopt);
  EXPECT_EQ(LevelFromProto(static_cast<v1::Level>(77)), std::nullopt);
}

TEST(ProtoConvertTest, TargetsStatusesStates_EveryValueMapped) {
  EXPECT_EQ(TargetToProto(0), v1::TARGET_UNSPECIFIED);
  EXPECT_EQ(TargetToProto(1), v1::TARGET_CPU);
  EXPECT_EQ(TargetToProto(2), v1::TARGET_GPU);
  EXPECT_EQ(TargetToProto(3), v1::TARGET_OTHER);
  EXPECT_EQ(TargetToProto(200), v1::TARGET_UNSPECIFIED);
  EXPECT_EQ(TargetFromProto(v1::TARGET_GPU), abi::TargetKind::kGpu);
  EXPECT_EQ(TargetFromProto(v1::TARGET_UNSPECIFIED), std::nullopt);
  EXPECT_EQ(TargetFromProto(static_cast<v1::Target>(8)), std::nullopt);
  for (SpanStatus s : {SpanStatus::kOk, SpanStatus::kIncomplete, SpanStatus::kCompleteWithoutLaunch,
                       SpanStatus::kDuplicate}) {
    EXPECT_EQ(StatusFromProto(StatusToProto(s)), s);
  }
  EXPECT_EQ(StatusToProto(SpanStatus::kDuplicate), v1::SPAN_STATUS_DUPLICATE);
  EXPECT_EQ(StatusFromProto(v1::SPAN_STATUS_UNSPECIFIED), std::nullopt);
  EXPECT_EQ(StateToProto(SessionState::kRunning), v1::SESSION_STATE_RUNNING);
  EXPECT_EQ(StateToProto(SessionState::kExited), v1::SESSION_STATE_EXITED);
  EXPECT_EQ(StateToProto(SessionState::kCrashed), v1::SESSION_STATE_CRASHED);
}

}  // namespace
}  // namespace optrace::daemon
