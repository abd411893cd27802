// Self time at ingest: SpanCorrelator's children_ns for nested ops on one
// thread, across threads, across correlation paths and at the edges
// (device ops, children that outlive their parent, broken producers).
#include <gtest/gtest.h>

#include <map>

#include "correlate/span_correlator.h"
#include "half_ops.h"
#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

using testing::Half;
using testing::kC;
using testing::kL;

SpanCorrelator Make(size_t max_open = 100) {
  return SpanCorrelator([](uint64_t a, uint64_t b) { return b - a; }, max_open, 100);
}

// The spans of `out` by op id.
std::map<uint64_t, Span> ById(const CorrelatorOutput& out) {
  std::map<uint64_t, Span> spans;
  for (const Span& s : out.spans) spans[s.op_id] = s;
  return spans;
}

TEST(SelfTimeTest, NestedChain_SelfTimesAddUpToTheOutermostDuration) {
  // 1 [0, 100) > 2 [10, 90) > 3 [20, 60), and 4 [65, 80) under 2.
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  for (const HalfOp& h :
       {Half(kL, 1, 0, 5), Half(kL, 2, 10, 5, 1), Half(kL, 3, 20, 5, 2), Half(kC, 3, 60, 5),
        Half(kL, 4, 65, 5, 2), Half(kC, 4, 80, 5), Half(kC, 2, 90, 5), Half(kC, 1, 100, 5)}) {
    c.Add(h, &out);
  }
  std::map<uint64_t, Span> spans = ById(out);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(SelfNs(spans[1]), 20u);  // 100 - 80
  EXPECT_EQ(SelfNs(spans[2]), 25u);  // 80 - 40 - 15
  EXPECT_EQ(SelfNs(spans[3]), 40u);
  EXPECT_EQ(SelfNs(spans[4]), 15u);
  uint64_t self_sum = 0;
  for (const auto& [id, span] : spans) self_sum += SelfNs(span);
  EXPECT_EQ(self_sum, spans[1].duration_ns);
}

TEST(SelfTimeTest, TwoThreadsInterleaved_EachParentCountsOnlyItsOwnChildren) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  for (const HalfOp& h :
       {Half(kL, 1, 0, 5), Half(kL, 101, 0, 6), Half(kL, 2, 10, 5, 1), Half(kL, 102, 10, 6, 101),
        Half(kC, 2, 30, 5), Half(kC, 102, 50, 6), Half(kC, 1, 40, 5), Half(kC, 101, 60, 6)}) {
    c.Add(h, &out);
  }
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 20u);    // 40 - 20
  EXPECT_EQ(SelfNs(spans[101]), 20u);  // 60 - 40
}

TEST(SelfTimeTest, ChildOnTheMapPath_StillSubtracted) {
  // A COMPLETE from another thread first spills the stacks: the parent and
  // child then pair through the maps.
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 0, 5), &out);
  c.Add(Half(kL, 2, 10, 5, 1), &out);
  c.Add(Half(kL, 50, 12, 9), &out);
  c.Add(Half(kC, 50, 15, 8), &out);  // ends on another thread: spills
  c.Add(Half(kC, 2, 40, 5), &out);
  c.Add(Half(kC, 1, 100, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 70u);
  EXPECT_EQ(SelfNs(spans[2]), 30u);
}

TEST(SelfTimeTest, ChildLaunchedOnTheStackWhileParentIsInTheMap_Subtracted) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 0, 5), &out);
  c.Add(Half(kL, 50, 1, 9), &out);
  c.Add(Half(kC, 50, 2, 8), &out);     // spills 1 into the map
  c.Add(Half(kL, 2, 10, 5, 1), &out);  // on the (now empty) stack
  c.Add(Half(kC, 2, 30, 5), &out);
  c.Add(Half(kC, 1, 100, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 80u);
}

TEST(SelfTimeTest, DeviceOpsAndOpsEndedElsewhere_NeverSubtract) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 0, 5), &out);
  // A GPU op begun by the host op, completed by a completion thread.
  c.Add(Half(kL, 2, 10, 5, 1), &out);
  c.Add(Half(kC, 2, 90, 7), &out);
  // A device-timed op completed on the host thread.
  c.Add(Half(kL, 3, 20, 5, 1), &out);
  HalfOp timed = Half(kC, 3, 50, 5);
  timed.has_device_ns = true;
  timed.device_ns = 25;
  c.Add(timed, &out);
  c.Add(Half(kC, 1, 100, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 100u);
  EXPECT_EQ(spans[1].children_ns, 0u);
}

TEST(SelfTimeTest, ChildOutlivingItsParent_NotSubtracted) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 0, 5), &out);
  c.Add(Half(kL, 2, 10, 5, 1), &out);
  c.Add(Half(kC, 1, 50, 5), &out);  // not the innermost: the general path
  c.Add(Half(kC, 2, 80, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 50u);
  EXPECT_EQ(SelfNs(spans[2]), 70u);
}

TEST(SelfTimeTest, Malicious_ChildrenLongerThanParent_ClampedToTheParent) {
  // A producer whose clock runs backwards for the parent: children add up
  // to more than the parent's duration. Self time stays 0, never wraps.
  SpanCorrelator c([](uint64_t a, uint64_t b) { return b > a ? b - a : 0; }, 100, 100);
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 50, 5), &out);
  c.Add(Half(kL, 2, 10, 5, 1), &out);
  c.Add(Half(kC, 2, 500, 5), &out);
  c.Add(Half(kC, 1, 60, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(spans[1].duration_ns, 10u);
  EXPECT_EQ(spans[1].children_ns, 10u);
  EXPECT_EQ(SelfNs(spans[1]), 0u);
}

TEST(SelfTimeTest, Malicious_ParentIdOfAnotherThreadsOp_NotSubtracted) {
  SpanCorrelator c = Make();
  CorrelatorOutput out;
  c.Add(Half(kL, 1, 0, 5), &out);
  c.Add(Half(kL, 2, 10, 6, 1), &out);  // claims a parent open on thread 5
  c.Add(Half(kC, 2, 40, 6), &out);
  c.Add(Half(kC, 1, 100, 5), &out);
  std::map<uint64_t, Span> spans = ById(out);
  EXPECT_EQ(SelfNs(spans[1]), 100u);
}

TEST(SelfTimeTest, NotOk_SelfTimeZero) {
  Span incomplete;
  incomplete.status = SpanStatus::kIncomplete;
  incomplete.duration_ns = 10;
  EXPECT_EQ(SelfNs(incomplete), 0u);
}

}  // namespace
}  // namespace optrace::daemon
