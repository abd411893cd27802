#include "tail_line.h"

#include <gtest/gtest.h>

#include <regex>

namespace optrace::cli {
namespace {

// The design's text format of op events, exactly.
const std::regex kOpLine(
    R"(\[OP\] (LAUNCH|COMPLETE) \S+ \[id=\d+\] target=(cpu|gpu|other|none):\d+)");

v1::TailResponse Event(v1::LiveEvent::Kind kind) {
  v1::TailResponse item;
  v1::LiveEvent* e = item.mutable_event();
  e->set_kind(kind);
  e->set_name("elementwise");
  e->set_op_id(40028);
  e->mutable_device()->set_target(v1::TARGET_CPU);
  e->mutable_device()->set_ordinal(0);
  e->set_pid(4242);
  e->set_tag("add_f32_1024");
  e->set_source_location("model.cc:17");
  return item;
}

TEST(TailLineTest, Launch_DesignFormatExactly) {
  const std::string line = FormatTailLine(Event(v1::LiveEvent::KIND_LAUNCH), false, Palette(false));
  EXPECT_EQ(line, "[OP] LAUNCH elementwise [id=40028] target=cpu:0");
  EXPECT_TRUE(std::regex_match(line, kOpLine));
}

TEST(TailLineTest, Complete_DesignFormatExactly) {
  v1::TailResponse item = Event(v1::LiveEvent::KIND_COMPLETE);
  item.mutable_event()->set_duration_ns(1'234'567);
  EXPECT_EQ(FormatTailLine(item, false, Palette(false)),
            "[OP] COMPLETE elementwise [id=40028] target=cpu:0");
}

TEST(TailLineTest, VerboseComplete_PidTagDurationSource) {
  v1::TailResponse item = Event(v1::LiveEvent::KIND_COMPLETE);
  item.mutable_event()->set_duration_ns(1'234'567);
  EXPECT_EQ(FormatTailLine(item, true, Palette(false)),
            "[OP] COMPLETE elementwise [id=40028] target=cpu:0 pid=4242 tag=add_f32_1024 "
            "dur=1.23ms src=model.cc:17");
}

TEST(TailLineTest, VerboseLaunch_NoDuration) {
  v1::TailResponse item = Event(v1::LiveEvent::KIND_LAUNCH);
  item.mutable_event()->set_duration_ns(5);  // ignored: a launch has no duration yet
  EXPECT_EQ(FormatTailLine(item, true, Palette(false)),
            "[OP] LAUNCH elementwise [id=40028] target=cpu:0 pid=4242 tag=add_f32_1024 "
            "src=model.cc:17");
}

TEST(TailLineTest, VerboseCompleteWithoutLaunch_NoDuration) {
  const std::string line =
      FormatTailLine(Event(v1::LiveEvent::KIND_COMPLETE), true, Palette(false));
  EXPECT_EQ(line.find("dur="), std::string::npos) << line;
}

TEST(TailLineTest, GpuDeviceDuration_Shown) {
  v1::TailResponse item = Event(v1::LiveEvent::KIND_COMPLETE);
  item.mutable_event()->mutable_device()->set_target(v1::TARGET_GPU);
  item.mutable_event()->mutable_device()->set_ordinal(1);
  item.mutable_event()->set_duration_ns(2'000'000);
  item.mutable_event()->set_device_duration_ns(1'500'000);
  EXPECT_EQ(FormatTailLine(item, true, Palette(false)),
            "[OP] COMPLETE elementwise [id=40028] target=gpu:1 pid=4242 tag=add_f32_1024 "
            "dur=2.00ms device_dur=1.50ms src=model.cc:17");
}

TEST(TailLineTest, Issue16_ZeroDurations_ShownAsMeasured) {
  v1::TailResponse item = Event(v1::LiveEvent::KIND_COMPLETE);
  item.mutable_event()->set_duration_ns(0);
  item.mutable_event()->set_device_duration_ns(0);
  EXPECT_EQ(FormatTailLine(item, true, Palette(false)),
            "[OP] COMPLETE elementwise [id=40028] target=cpu:0 pid=4242 tag=add_f32_1024 "
            "dur=0ns device_dur=0ns src=model.cc:17");
  // Measured, so painted as a whole op, not in the warning colour of half
  // of one (without -v the duration itself is not in the line).
  v1::TailResponse longer = Event(v1::LiveEvent::KIND_COMPLETE);
  longer.mutable_event()->set_duration_ns(10);
  EXPECT_EQ(FormatTailLine(item, false, Palette(true)),
            FormatTailLine(longer, false, Palette(true)));
  EXPECT_NE(FormatTailLine(item, false, Palette(true)),
            FormatTailLine(Event(v1::LiveEvent::KIND_COMPLETE), false, Palette(true)));
}

TEST(TailLineTest, Issue16_SpanZeroDurations_ShownAsMeasured) {
  v1::TailResponse item;
  v1::Span* span = item.mutable_span();
  span->set_name("copy");
  span->set_op_id(8);
  span->mutable_device()->set_target(v1::TARGET_GPU);
  span->set_status(v1::SPAN_STATUS_OK);
  span->set_duration_ns(0);
  span->set_device_duration_ns(0);
  EXPECT_EQ(FormatTailLine(item, true, Palette(false)),
            "[SPAN] copy [id=8] target=gpu:0 dur=0ns session=0 device_dur=0ns");
}

TEST(TailLineTest, MarkAndCounter_OwnPrefixes) {
  v1::TailResponse mark = Event(v1::LiveEvent::KIND_MARK);
  mark.mutable_event()->set_name("checkpoint");
  EXPECT_EQ(FormatTailLine(mark, false, Palette(false)), "[MARK] checkpoint target=cpu:0");
  v1::TailResponse counter = Event(v1::LiveEvent::KIND_COUNTER);
  counter.mutable_event()->set_name("queue_depth");
  counter.mutable_event()->set_value(-12);
  EXPECT_EQ(FormatTailLine(counter, false, Palette(false)), "[COUNTER] queue_depth value=-12");
}

TEST(TailLineTest, Span_DurationOrStatus) {
  v1::TailResponse item;
  v1::Span* span = item.mutable_span();
  span->set_name("matmul");
  span->set_op_id(7);
  span->mutable_device()->set_target(v1::TARGET_GPU);
  span->set_status(v1::SPAN_STATUS_OK);
  span->set_duration_ns(1'230'000);
  EXPECT_EQ(FormatTailLine(item, false, Palette(false)),
            "[SPAN] matmul [id=7] target=gpu:0 dur=1.23ms");
  span->set_status(v1::SPAN_STATUS_INCOMPLETE);
  span->clear_duration_ns();  // unknown: the daemon sends none
  EXPECT_EQ(FormatTailLine(item, false, Palette(false)),
            "[SPAN] matmul [id=7] target=gpu:0 status=incomplete");
}

TEST(TailLineTest, Lag_OneLineWithCount) {
  v1::TailResponse item;
  item.mutable_lag()->set_skipped(1200);
  item.mutable_lag()->set_message("lagged, 1200 events skipped");
  EXPECT_EQ(FormatTailLine(item, false, Palette(false)), "[LAG] lagged, 1200 events skipped");
}

TEST(TailLineTest, Colours_LaunchCompleteIncompleteDistinct) {
  const Palette colours(true);
  v1::TailResponse complete = Event(v1::LiveEvent::KIND_COMPLETE);
  complete.mutable_event()->set_duration_ns(10);
  const std::string launch_line = FormatTailLine(Event(v1::LiveEvent::KIND_LAUNCH), false, colours);
  const std::string complete_line = FormatTailLine(complete, false, colours);
  v1::TailResponse incomplete;
  incomplete.mutable_span()->set_name("matmul");
  incomplete.mutable_span()->set_status(v1::SPAN_STATUS_INCOMPLETE);
  const std::string incomplete_line = FormatTailLine(incomplete, false, colours);
  EXPECT_EQ(launch_line, "\x1b[36m[OP] LAUNCH\x1b[0m elementwise [id=40028] target=cpu:0");
  EXPECT_EQ(complete_line, "\x1b[32m[OP] COMPLETE\x1b[0m elementwise [id=40028] target=cpu:0");
  EXPECT_EQ(incomplete_line.rfind("\x1b[1;31m[SPAN]\x1b[0m", 0), 0u) << incomplete_line;
}

TEST(TailLineTest, UnknownItem_SaysSo) {
  EXPECT_EQ(FormatTailLine(v1::TailResponse(), false, Palette(false)).rfind("[?]", 0), 0u);
}

}  // namespace
}  // namespace optrace::cli
