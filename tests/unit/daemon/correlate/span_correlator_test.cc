#include "correlate/span_correlator.h"

#include <gtest/gtest.h>

#include <map>

#include "half_ops.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

using testing::Half;
using testing::kC;
using testing::kL;

SpanCorrelator Make(size_t max_open = 100, size_t max_pending = 100) {
  return SpanCorrelator([](uint64_t a, uint64_t b) { return b - a; }, max_open, max_pending);
}

TEST(SpanCorrelatorTest, LaunchThenComplete_OneOkSpanWithDurationAndBothThreads) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 5, 100, 1), &out);
  EXPECT_TRUE(out.spans.empty());
  HalfOp done = Half(kC, 5, 350, 2);
  done.device_ns = 123;
  c.Add(done, &out);
  ASSERT_EQ(out.spans.size(), 1u);
  const Span& s = out.spans[0];
  EXPECT_EQ(s.status, SpanStatus::kOk);
  EXPECT_EQ(s.duration_ns, 250u);
  EXPECT_EQ(s.start_ns, 100);
  EXPECT_EQ(s.launch_tid, 1u);
  EXPECT_EQ(s.complete_tid, 2u);
  EXPECT_EQ(s.device_ns, 123u);
  EXPECT_EQ(c.open_count(), 0u);
}

TEST(SpanCorrelatorTest, CompleteBeforeLaunch_HeldThenPaired) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kC, 9, 500, 3), &out);
  c.Add(Half(kL, 9, 200, 4), &out);
  ASSERT_EQ(out.spans.size(), 1u);
  EXPECT_EQ(out.spans[0].status, SpanStatus::kOk);
  EXPECT_EQ(out.spans[0].duration_ns, 300u);
}

TEST(SpanCorrelatorTest, SecondLaunchForOpenId_StoredAsDuplicateNeverMerged) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10), &out);
  c.Add(Half(kL, 1, 20), &out);
  ASSERT_EQ(out.spans.size(), 1u);
  EXPECT_EQ(out.spans[0].status, SpanStatus::kDuplicate);
  EXPECT_EQ(out.spans[0].start_ns, 20);
  c.Add(Half(kC, 1, 30), &out);
  ASSERT_EQ(out.spans.size(), 2u);
  EXPECT_EQ(out.spans[1].status, SpanStatus::kOk);
  EXPECT_EQ(out.spans[1].duration_ns, 20u) << "paired with the first LAUNCH";
  EXPECT_EQ(c.stats().duplicates, 1u);
}

TEST(SpanCorrelatorTest, Finish_OpenBecomeIncompleteWaitingBecomeWithoutLaunch) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10), &out);
  c.Add(Half(kC, 2, 20), &out);
  c.Finish(&out);
  ASSERT_EQ(out.spans.size(), 2u);
  std::map<uint64_t, SpanStatus> status;
  for (const Span& s : out.spans) status[s.op_id] = s.status;
  EXPECT_EQ(status[1], SpanStatus::kIncomplete);
  EXPECT_EQ(status[2], SpanStatus::kCompleteWithoutLaunch);
  EXPECT_EQ(c.stats().incomplete, 1u);
  EXPECT_EQ(c.stats().completes_without_launch, 1u);
}

TEST(SpanCorrelatorTest, PersistThenPair_ClosesThePersistedHalf) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10), &out);
  c.Add(Half(kL, 2, 11), &out);
  c.Add(Half(kC, 2, 12), &out);  // paired before the cut: never persisted
  c.PersistWaiting(&out);
  ASSERT_EQ(out.halves_opened.size(), 1u);
  EXPECT_EQ(out.halves_opened[0].op_id, 1u);
  c.PersistWaiting(&out);
  EXPECT_EQ(out.halves_opened.size(), 1u) << "persisted once";
  c.Add(Half(kC, 1, 40), &out);
  ASSERT_EQ(out.halves_closed.size(), 1u);
  EXPECT_EQ(out.halves_closed[0], std::make_pair(uint64_t{1}, kL));
}

TEST(SpanCorrelatorTest, Restore_PersistedHalvesPairAfterRestart) {
  SpanCorrelator c = Make();
  c.Restore({Half(kL, 77, 1000)});
  EXPECT_EQ(c.open_count(), 1u);
  CorrelatorOutput out;
  c.Add(Half(kC, 77, 1600), &out);
  ASSERT_EQ(out.spans.size(), 1u);
  EXPECT_EQ(out.spans[0].duration_ns, 600u);
  EXPECT_EQ(out.halves_closed.size(), 1u);
}

TEST(SpanCorrelatorTest, Unpersist_ShedHalvesPersistedAgainNextCut) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10), &out);
  c.PersistWaiting(&out);
  c.Unpersist(out.halves_opened);
  CorrelatorOutput again;
  c.PersistWaiting(&again);
  EXPECT_EQ(again.halves_opened.size(), 1u);
}

TEST(SpanCorrelatorTest, Malicious_FloodOfOpenLaunches_BoundedOldestStoredIncomplete) {
  SpanCorrelator c = Make(/*max_open=*/100, /*max_pending=*/10);
  CorrelatorOutput out;
  for (uint64_t id = 1; id <= 1000; ++id) c.Add(Half(kL, id, id), &out);
  EXPECT_LE(c.open_count(), 100u);
  EXPECT_GT(c.stats().evicted_open, 0u);
  for (const Span& s : out.spans) {
    EXPECT_EQ(s.status, SpanStatus::kIncomplete);
    EXPECT_LT(s.op_id, 1000u - 80) << "the oldest go first";
  }
  EXPECT_EQ(out.spans.size() + c.open_count(), 1000u) << "nothing disappears";
  for (uint64_t id = 5000; id < 5100; ++id) c.Add(Half(kC, id, id), &out);
  EXPECT_GT(c.stats().evicted_pending, 0u);
}

TEST(SpanCorrelatorTest, NestedScopedOpsOnTwoThreads_EachPairedWithItsOwnLaunch) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  // Thread 1 opens 1 > 2, thread 2 opens 101 > 102, interleaved; each
  // closes innermost first.
  c.Add(Half(kL, 1, 10, 1), &out);
  c.Add(Half(kL, 101, 11, 2), &out);
  c.Add(Half(kL, 2, 12, 1), &out);
  c.Add(Half(kL, 102, 13, 2), &out);
  EXPECT_EQ(c.open_count(), 4u);
  c.Add(Half(kC, 2, 20, 1), &out);
  c.Add(Half(kC, 102, 33, 2), &out);
  c.Add(Half(kC, 1, 40, 1), &out);
  c.Add(Half(kC, 101, 61, 2), &out);
  ASSERT_EQ(out.spans.size(), 4u);
  std::map<uint64_t, uint64_t> durations;
  for (const Span& s : out.spans) {
    EXPECT_EQ(s.status, SpanStatus::kOk);
    durations[s.op_id] = s.duration_ns;
  }
  EXPECT_EQ(durations, (std::map<uint64_t, uint64_t>{{1, 30}, {2, 8}, {101, 50}, {102, 20}}));
  EXPECT_EQ(c.open_count(), 0u);
}

TEST(SpanCorrelatorTest, CompleteOnOtherThreadOfStackedLaunch_StillPaired) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10, 1), &out);  // an async op: completed elsewhere
  c.Add(Half(kL, 2, 11, 1), &out);
  c.Add(Half(kC, 1, 50, 9), &out);  // not the top of thread 9's stack
  c.Add(Half(kC, 2, 60, 1), &out);  // the stack was moved to the map
  ASSERT_EQ(out.spans.size(), 2u);
  EXPECT_EQ(out.spans[0].op_id, 1u);
  EXPECT_EQ(out.spans[0].duration_ns, 40u);
  EXPECT_EQ(out.spans[1].op_id, 2u);
  EXPECT_EQ(out.spans[1].status, SpanStatus::kOk);
  EXPECT_EQ(c.open_count(), 0u);
}

TEST(SpanCorrelatorTest, StackedLaunchPersistedAtCut_ClosedWhenItsCompleteArrives) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10, 1), &out);
  c.PersistWaiting(&out);
  ASSERT_EQ(out.halves_opened.size(), 1u);
  EXPECT_EQ(out.halves_opened[0].op_id, 1u);
  CorrelatorOutput next;
  c.PersistWaiting(&next);
  EXPECT_TRUE(next.halves_opened.empty()) << "persisted twice";
  c.Add(Half(kC, 1, 30, 1), &next);
  ASSERT_EQ(next.spans.size(), 1u);
  ASSERT_EQ(next.halves_closed.size(), 1u);
  EXPECT_EQ(next.halves_closed[0].first, 1u);
}

TEST(SpanCorrelatorTest, StackedLaunchesAtFinish_StoredIncomplete) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 10, 1), &out);
  c.Add(Half(kL, 2, 11, 1), &out);
  ASSERT_EQ(c.OpenLaunches().size(), 2u);
  c.Finish(&out);
  ASSERT_EQ(out.spans.size(), 2u);
  for (const Span& s : out.spans) EXPECT_EQ(s.status, SpanStatus::kIncomplete);
  EXPECT_EQ(c.stats().incomplete, 2u);
}

}  // namespace
TEST(SpanCorrelatorTest, OpenLaunches_AtMostMax_TheOldestInOpIdOrder) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  // Nested on three threads, ids not in arrival order.
  const uint64_t ids[] = {40, 7, 23, 5, 31, 12, 19, 2};
  for (size_t i = 0; i < std::size(ids); ++i) {
    c.Add(Half(kL, ids[i], 10 + i, static_cast<uint32_t>(1 + i % 3)), &out);
  }
  const std::vector<HalfOp> oldest = c.OpenLaunches(3);
  ASSERT_EQ(oldest.size(), 3u);
  EXPECT_EQ(oldest[0].op_id, 2u);
  EXPECT_EQ(oldest[1].op_id, 5u);
  EXPECT_EQ(oldest[2].op_id, 7u);
  EXPECT_EQ(c.OpenLaunches().size(), std::size(ids));
  EXPECT_TRUE(c.OpenLaunches(0).empty());
}

}  // namespace optrace::daemon
