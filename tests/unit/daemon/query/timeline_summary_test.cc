// TimelineSummary: which spans are listed and which are summed per pixel,
// the buckets' sums and dominant names, depths, lanes, the range's edges
// and the bounds on what one layout holds.
#include "query/timeline_summary.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

// An OK CPU span of thread `thread`: op `op_id` named `name`, from `start`
// for `duration` ns.
Span Cpu(uint64_t op_id, StringId name, int64_t start, uint64_t duration, uint32_t thread = 1) {
  Span s;
  s.op_id = op_id;
  s.name = name;
  s.start_ns = start;
  s.duration_ns = duration;
  s.launch_tid = thread;
  s.complete_tid = thread;
  s.target = static_cast<uint8_t>(abi::TargetKind::kCpu);
  return s;
}

// The lane of `layout` whose key is `key`; fails the test when absent.
const TimelineLaneLayout& Lane(const TimelineLayout& layout, const TimelineLaneKey& key) {
  for (const TimelineLaneLayout& lane : layout.lanes) {
    if (lane.key == key) return lane;
  }
  ADD_FAILURE() << "no lane of thread " << key.thread << " stream " << key.stream;
  static const TimelineLaneLayout kNone;
  return kNone;
}

constexpr TimelineLaneKey kThread1{.target = 1, .thread = 1};

TEST(TimelineSummaryTest, SpansOfAPixelOrMore_ListedNarrowerOnesSummedInTheirPixel) {
  // 1000 ns over 10 pixels: 100 ns a pixel.
  TimelineSummary summary(1000, 2000, 10);
  summary.Add(Cpu(1, 11, 1000, 100));  // exactly a pixel: listed
  summary.Add(Cpu(2, 12, 1250, 20));   // pixel 2
  summary.Add(Cpu(3, 12, 1260, 30));   // pixel 2
  summary.Add(Cpu(4, 13, 1290, 40));   // pixel 2
  summary.Add(Cpu(5, 13, 1905, 99));   // pixel 9
  const TimelineLayout layout = summary.Finish();
  EXPECT_EQ(layout.spans, 5u);
  EXPECT_EQ(layout.min_listed_ns, 100u);
  EXPECT_EQ(layout.spans_left_out, 0u);
  ASSERT_EQ(layout.lanes.size(), 1u);
  const TimelineLaneLayout& lane = layout.lanes[0];
  ASSERT_EQ(lane.spans.size(), 1u);
  EXPECT_EQ(lane.spans[0].span.op_id, 1u);
  ASSERT_EQ(lane.buckets.size(), 2u);
  EXPECT_EQ(lane.buckets[0].pixel, 2u);
  EXPECT_EQ(lane.buckets[0].count, 3u);
  EXPECT_EQ(lane.buckets[0].busy_ns, 90u);
  EXPECT_EQ(lane.buckets[0].name, 12u) << "50 ns of name 12 against 40 of name 13";
  EXPECT_EQ(lane.buckets[1].pixel, 9u);
  EXPECT_EQ(lane.buckets[1].count, 1u);
  EXPECT_EQ(lane.buckets[1].name, 13u);
}

TEST(TimelineSummaryTest, DominantNameTie_TheOneWithMoreSpans) {
  TimelineSummary summary(0, 1000, 1);
  summary.Add(Cpu(1, 21, 10, 60));
  summary.Add(Cpu(2, 22, 20, 30));
  summary.Add(Cpu(3, 22, 30, 30));
  const TimelineLayout layout = summary.Finish();
  ASSERT_EQ(layout.lanes.size(), 1u);
  ASSERT_EQ(layout.lanes[0].buckets.size(), 1u);
  EXPECT_EQ(layout.lanes[0].buckets[0].name, 22u);
  EXPECT_EQ(layout.lanes[0].buckets[0].busy_ns, 120u);
}

TEST(TimelineSummaryTest, NestedSpans_DepthFromWhatIsStillRunning) {
  TimelineSummary summary(0, 1000, 100);  // 10 ns a pixel
  // Added out of order, as pages can hold them: parent stored last.
  summary.Add(Cpu(2, 2, 100, 300));  // child of 1
  summary.Add(Cpu(3, 3, 150, 100));  // child of 2
  summary.Add(Cpu(4, 4, 500, 200));  // child of 1, after 2 ended
  summary.Add(Cpu(1, 1, 100, 800));  // root; starts with 2 but is longer
  summary.Add(Cpu(5, 5, 950, 20));   // after 1 ended: a root again
  summary.Add(Cpu(6, 6, 160, 5));    // narrow, inside 3: summed at depth 3
  const TimelineLayout layout = summary.Finish();
  const TimelineLaneLayout& lane = Lane(layout, kThread1);
  std::vector<std::pair<uint64_t, uint32_t>> depths;
  for (const TimelineListedSpan& s : lane.spans) depths.emplace_back(s.span.op_id, s.depth);
  EXPECT_EQ(depths,
            (std::vector<std::pair<uint64_t, uint32_t>>{{1, 0}, {2, 1}, {3, 2}, {4, 1}, {5, 0}}));
  ASSERT_EQ(lane.buckets.size(), 1u);
  EXPECT_EQ(lane.buckets[0].pixel, 16u);
  EXPECT_EQ(lane.buckets[0].depth, 3u);
  EXPECT_EQ(lane.max_depth, 3u);
}

TEST(TimelineSummaryTest, ThreadsAndDeviceStreams_OneLaneEachHostThreadsFirst) {
  TimelineSummary summary(0, 1000, 10);
  summary.Add(Cpu(1, 1, 0, 500, 9));
  summary.Add(Cpu(2, 1, 0, 500, 3));
  Span gpu = Cpu(3, 2, 100, 300, 9);
  gpu.target = static_cast<uint8_t>(abi::TargetKind::kGpu);
  gpu.device = 1;
  gpu.stream = 7;
  summary.Add(gpu);
  gpu.op_id = 4;
  gpu.stream = 2;
  summary.Add(gpu);
  Span no_launch = Cpu(5, 1, 600, 0, 0);  // a COMPLETE without its LAUNCH
  no_launch.complete_tid = 3;
  no_launch.status = SpanStatus::kCompleteWithoutLaunch;
  summary.Add(no_launch);
  const TimelineLayout layout = summary.Finish();
  std::vector<TimelineLaneKey> keys;
  for (const TimelineLaneLayout& lane : layout.lanes) keys.push_back(lane.key);
  const TimelineLaneKey gpu_stream2{.on_device = true, .target = 2, .device = 1, .stream = 2};
  const TimelineLaneKey gpu_stream7{.on_device = true, .target = 2, .device = 1, .stream = 7};
  EXPECT_EQ(keys,
            (std::vector<TimelineLaneKey>{
                {.target = 1, .thread = 3}, {.target = 1, .thread = 9}, gpu_stream2, gpu_stream7}));
  const TimelineLaneLayout& thread3 = Lane(layout, {.target = 1, .thread = 3});
  EXPECT_EQ(thread3.spans.size(), 1u);
  ASSERT_EQ(thread3.buckets.size(), 1u) << "a span of no known duration is summed, never listed";
  EXPECT_EQ(thread3.buckets[0].pixel, 6u);
  EXPECT_EQ(thread3.buckets[0].busy_ns, 0u);
}

TEST(TimelineSummaryTest, RangeEdges_OverlappingSpansCountedOthersIgnored) {
  TimelineSummary summary(1000, 2000, 10);
  summary.Add(Cpu(1, 1, 500, 600));    // ends inside: listed, starts before
  summary.Add(Cpu(2, 1, 900, 100));    // ends at the start: out
  summary.Add(Cpu(3, 1, 995, 10));     // narrow, ends inside: pixel 0
  summary.Add(Cpu(4, 1, 2000, 10));    // starts at the end: out
  summary.Add(Cpu(5, 1, 1000, 0));     // no time, at the start: in
  summary.Add(Cpu(6, 1, 1999, 5000));  // runs past the end: listed
  const TimelineLayout layout = summary.Finish();
  EXPECT_EQ(layout.spans, 4u);
  const TimelineLaneLayout& lane = Lane(layout, kThread1);
  ASSERT_EQ(lane.spans.size(), 2u);
  EXPECT_EQ(lane.spans[0].span.op_id, 1u);
  EXPECT_EQ(lane.spans[1].span.op_id, 6u);
  ASSERT_EQ(lane.buckets.size(), 1u);
  EXPECT_EQ(lane.buckets[0].pixel, 0u);
  EXPECT_EQ(lane.buckets[0].count, 2u);
}

TEST(TimelineSummaryTest, MoreWideSpansThanTheBound_WidestListedRestSummed) {
  TimelineBounds bounds;
  bounds.max_spans = 3;
  TimelineSummary summary(0, 100'000, 100, bounds);  // 1000 ns a pixel
  // Durations 1000, 1100, ..., 1900 at pixels 0, 10, 20, ...
  for (uint64_t i = 0; i < 10; ++i) {
    summary.Add(Cpu(i + 1, 1, static_cast<int64_t>(i) * 10'000, 1000 + 100 * i));
  }
  const TimelineLayout layout = summary.Finish();
  EXPECT_EQ(layout.spans, 10u);
  EXPECT_EQ(layout.min_listed_ns, 1700u);
  const TimelineLaneLayout& lane = Lane(layout, kThread1);
  ASSERT_EQ(lane.spans.size(), 3u);
  EXPECT_EQ(lane.spans[0].span.op_id, 8u);
  EXPECT_EQ(lane.spans[2].span.op_id, 10u);
  ASSERT_EQ(lane.buckets.size(), 7u);
  uint64_t summed = 0;
  for (const TimelineBucketSum& b : lane.buckets) summed += b.count;
  EXPECT_EQ(summed, 7u);
}

TEST(TimelineSummaryTest, TiedDurationsPastTheBound_NoneOfTheTieListed) {
  TimelineBounds bounds;
  bounds.max_spans = 2;
  TimelineSummary bounded(0, 1000, 10, bounds);
  for (uint64_t i = 0; i < 4; ++i) {
    bounded.Add(Cpu(i + 1, 1, static_cast<int64_t>(i) * 200, i == 0 ? 190 : 150));
  }
  const TimelineLayout layout = bounded.Finish();
  EXPECT_EQ(layout.min_listed_ns, 190u);
  EXPECT_EQ(Lane(layout, kThread1).spans.size(), 1u) << "three tied at 150 would pass 2";
}

TEST(TimelineSummaryTest, BucketAndLaneBounds_SpansPastThemCountedAsLeftOut) {
  TimelineBounds bounds;
  bounds.max_buckets = 2;
  bounds.max_lanes = 2;
  TimelineSummary summary(0, 1000, 10, bounds);
  summary.Add(Cpu(1, 1, 0, 1, 1));
  summary.Add(Cpu(2, 1, 100, 1, 1));
  summary.Add(Cpu(3, 1, 200, 1, 1));  // a third bucket: left out
  summary.Add(Cpu(4, 1, 0, 500, 2));  // a second lane, listed
  summary.Add(Cpu(5, 1, 0, 500, 3));  // a third lane: left out
  const TimelineLayout layout = summary.Finish();
  EXPECT_EQ(layout.spans, 5u);
  EXPECT_EQ(layout.spans_left_out, 2u);
  EXPECT_EQ(layout.lanes.size(), 2u);
}

TEST(TimelineSummaryTest, PixelOf_ClampsToTheRangeAndSplitsItEvenly) {
  TimelineSummary summary(1000, 1300, 3);
  EXPECT_EQ(summary.PixelOf(0), 0u);
  EXPECT_EQ(summary.PixelOf(1099), 0u);
  EXPECT_EQ(summary.PixelOf(1100), 1u);
  EXPECT_EQ(summary.PixelOf(1299), 2u);
  EXPECT_EQ(summary.PixelOf(5000), 2u);
}

TEST(TimelineSummaryTest, Malicious_ExtremeTimesAndDurations_NoOverflow) {
  TimelineSummary summary(0, std::numeric_limits<int64_t>::max(), 8192);
  summary.Add(
      Cpu(1, 1, std::numeric_limits<int64_t>::max() - 1, std::numeric_limits<uint64_t>::max()));
  summary.Add(Cpu(2, 1, 0, std::numeric_limits<uint64_t>::max()));
  summary.Add(Cpu(3, 1, 5, 1));
  summary.Add(Cpu(4, 1, 6, std::numeric_limits<uint64_t>::max() / 2));
  const TimelineLayout layout = summary.Finish();
  EXPECT_EQ(layout.spans, 4u);
  const TimelineLaneLayout& lane = Lane(layout, kThread1);
  EXPECT_EQ(lane.spans.size(), 3u);
  ASSERT_EQ(lane.buckets.size(), 1u);
  EXPECT_EQ(lane.buckets[0].pixel, 0u);
}

}  // namespace
}  // namespace optrace::daemon
