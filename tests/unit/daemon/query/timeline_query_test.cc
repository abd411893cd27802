// GetTimeline over a real database: the session's time range, a range
// whose spans started before it (a parent stored late, in a page of its
// own), the string table, and bad requests.
#include "query/timeline_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_test_store.h"
#include "optrace/abi.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;
constexpr int64_t kBase = 1'000'000'000;

class TimelineQueryTest : public ::testing::Test {
 protected:
  // A CPU span of thread 1 named `name`, at kBase + `start` for `duration`.
  Span Op(uint64_t op_id, uint64_t parent, const std::string& name, int64_t start,
          uint64_t duration, uint64_t children = 0) {
    Span s = testing::MakeSpan(op_id, kBase + start, store_.Intern(name), duration);
    s.parent_op_id = parent;
    s.children_ns = children;
    s.srcloc = store_.Intern("train.py:" + std::to_string(op_id));
    s.tag = 0;
    s.target = static_cast<uint8_t>(abi::TargetKind::kCpu);
    s.launch_tid = s.complete_tid = 1;
    return s;
  }

  // The children first, then, in a later batch (as a long op is stored
  // when it completes), the step that holds them.
  void SetUp() override {
    store_.AddSession(MakeSession(kSession),
                      {Op(2, 1, "forward", 100, 3000, 1000), Op(3, 2, "matmul", 1000, 1000),
                       Op(4, 1, "backward", 5000, 4000)});
    store_.AddSpans(kSession, {Op(1, 0, "step", 0, 10'000, 7000)});
  }

  v1::GetTimelineResponse Timeline(int64_t start, int64_t end, uint32_t width) {
    v1::GetTimelineRequest request;
    request.set_session_id(kSession);
    request.set_start_unix_ns(start);
    request.set_end_unix_ns(end);
    request.set_width(width);
    v1::GetTimelineResponse response;
    const Status status = GetTimeline(store_.reader(), request, TimelineBounds{}, &response);
    EXPECT_TRUE(status.ok()) << status.message();
    return response;
  }

  ApiTestStore store_;
};

TEST_F(TimelineQueryTest, WholeSession_RangeFromFirstStartToLatestEndAllSpansNested) {
  const v1::GetTimelineResponse t = Timeline(0, 0, 1000);
  EXPECT_EQ(t.session_start_unix_ns(), kBase);
  EXPECT_EQ(t.session_end_unix_ns(), kBase + 10'000);
  EXPECT_EQ(t.start_unix_ns(), kBase);
  EXPECT_EQ(t.end_unix_ns(), kBase + 10'000);
  EXPECT_EQ(t.spans(), 4u);
  ASSERT_EQ(t.lanes_size(), 1);
  const v1::TimelineLane& lane = t.lanes(0);
  EXPECT_EQ(lane.thread(), 1u);
  EXPECT_EQ(lane.device().target(), v1::TARGET_CPU);
  ASSERT_EQ(lane.spans_size(), 4);
  std::vector<std::string> lines;
  for (const v1::TimelineSpan& s : lane.spans()) {
    lines.push_back(t.strings(s.name()) + " " + std::to_string(s.depth()) + " " +
                    std::to_string(s.self_ns()) + " " + t.strings(s.source_location()));
  }
  EXPECT_EQ(lines,
            (std::vector<std::string>{"step 0 3000 train.py:1", "forward 1 2000 train.py:2",
                                      "matmul 2 1000 train.py:3", "backward 1 4000 train.py:4"}));
  EXPECT_EQ(lane.spans(2).parent_op_id(), 2u);
  EXPECT_EQ(lane.max_depth(), 2u);
  EXPECT_EQ(t.strings(0), "");
}

TEST_F(TimelineQueryTest, RangeInsideTheStep_StepStartedBeforeItStillListed) {
  // backward's time only, 10 pixels of 100 ns: matmul and forward ended before.
  const v1::GetTimelineResponse t = Timeline(kBase + 6000, kBase + 7000, 10);
  EXPECT_EQ(t.session_start_unix_ns(), kBase);
  EXPECT_EQ(t.start_unix_ns(), kBase + 6000);
  EXPECT_EQ(t.spans(), 2u);
  ASSERT_EQ(t.lanes_size(), 1);
  ASSERT_EQ(t.lanes(0).spans_size(), 2);
  EXPECT_EQ(t.strings(t.lanes(0).spans(0).name()), "step");
  EXPECT_EQ(t.strings(t.lanes(0).spans(1).name()), "backward");
  EXPECT_EQ(t.lanes(0).spans(1).depth(), 1u);
}

TEST_F(TimelineQueryTest, NarrowWidth_EverySpanSummedWithItsBusyTime) {
  // One pixel of 10 us: no span is as wide as the whole range but the step.
  const v1::GetTimelineResponse t = Timeline(kBase, kBase + 20'000, 1);
  ASSERT_EQ(t.lanes_size(), 1);
  EXPECT_EQ(t.lanes(0).spans_size(), 0);
  ASSERT_EQ(t.lanes(0).buckets_size(), 1);
  const v1::TimelineBucket& b = t.lanes(0).buckets(0);
  EXPECT_EQ(b.count(), 4u);
  EXPECT_EQ(b.busy_ns(), 18'000u);
  EXPECT_EQ(t.strings(b.name()), "step");
}

TEST_F(TimelineQueryTest, Malicious_LongDistinctTags_StringsBoundedRestLeftOutAsEmpty) {
  constexpr SessionId kTagged = 2;
  std::vector<Span> spans;
  for (uint64_t i = 0; i < 200; ++i) {
    Span s = Op(100 + i, 0, "op", static_cast<int64_t>(i) * 1000, 1000);
    s.tag = store_.Intern(std::string(4000, 'a') + std::to_string(i));
    spans.push_back(s);
  }
  store_.AddSession(MakeSession(kTagged), spans);
  v1::GetTimelineRequest request;
  request.set_session_id(kTagged);
  request.set_width(8192);
  v1::GetTimelineResponse t;
  ASSERT_TRUE(GetTimeline(store_.reader(), request, TimelineBounds{}, &t).ok());
  size_t bytes = 0;
  for (const std::string& text : t.strings()) bytes += text.size();
  EXPECT_LE(bytes, kMaxTimelineStringBytes);
  EXPECT_GT(t.strings_left_out(), 0u);
  ASSERT_EQ(t.lanes_size(), 1);
  ASSERT_EQ(t.lanes(0).spans_size(), 200);
  uint64_t without_tag = 0;
  for (const v1::TimelineSpan& s : t.lanes(0).spans()) without_tag += s.tag() == 0;
  EXPECT_EQ(without_tag, t.strings_left_out());
  EXPECT_EQ(t.strings(t.lanes(0).spans(0).name()), "op") << "names of spans kept";
}

TEST_F(TimelineQueryTest, UnknownSession_EmptyTimeline) {
  v1::GetTimelineRequest request;
  request.set_session_id(99);
  request.set_width(100);
  v1::GetTimelineResponse response;
  ASSERT_TRUE(GetTimeline(store_.reader(), request, TimelineBounds{}, &response).ok());
  EXPECT_EQ(response.lanes_size(), 0);
  EXPECT_EQ(response.session_end_unix_ns(), 0);
}

TEST_F(TimelineQueryTest, Malicious_BadRanges_InvalidArgumentNamingTheField) {
  struct Case {
    int64_t start, end;
    uint32_t width;
    std::string field;
  };
  for (const Case& c : std::vector<Case>{{0, 0, 0, "width 0"},
                                         {0, 0, kMaxTimelineWidth + 1, "width 8193"},
                                         {-5, 10, 100, "start_unix_ns -5"},
                                         {10, 10, 100, "end_unix_ns 10"},
                                         {20, 10, 100, "end_unix_ns 10"},
                                         {0, -1, 100, "end_unix_ns -1"}}) {
    v1::GetTimelineRequest request;
    request.set_session_id(kSession);
    request.set_start_unix_ns(c.start);
    request.set_end_unix_ns(c.end);
    request.set_width(c.width);
    v1::GetTimelineResponse response;
    const Status status = GetTimeline(store_.reader(), request, TimelineBounds{}, &response);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << c.field;
    EXPECT_NE(status.message().find(c.field), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace optrace::daemon
