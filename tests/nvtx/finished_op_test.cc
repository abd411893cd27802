// optrace/finished_op.hpp: ops recorded after the fact with their own
// timestamps, read back from this process's segment as the daemon would.
#include "optrace/finished_op.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "optrace/optrace.hpp"
#include "segment_reading.h"

namespace optrace {
namespace {

class FinishedOpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetLevel(Level::kTrace);
    segment_ = testing::AttachOrFail(SegmentNameOrEmpty());
    ASSERT_NE(segment_, nullptr);
    drainer_ = std::make_unique<reader::SegmentDrainer>(*segment_);
    Drain();  // start from an empty view
  }
  void TearDown() override { SetLevel(Level::kOff); }

  std::vector<abi::OpEvent> Drain() {
    return testing::DrainAll(*drainer_, reader::DrainMode::kLive, &stats_);
  }

  FinishedOp Kernel() {
    FinishedOp op;
    op.name_id = Intern("vectorAdd");
    op.tag_id = Intern("grid=4x1x1");
    op.placement = Placement::Gpu(1, 7);
    op.parent_op_id = 77;
    op.launch_ts = EventClockNow() - 1000;
    op.complete_ts = op.launch_ts + 500;
    op.device_duration_ns = 250;
    return op;
  }

  std::unique_ptr<reader::AttachedSegment> segment_;
  std::unique_ptr<reader::SegmentDrainer> drainer_;
  reader::ReaderStats stats_;
};

TEST_F(FinishedOpTest, LevelTrace_LaunchAndCompleteWithGivenTimesParentAndDeviceDuration) {
  const FinishedOp op = Kernel();
  const uint64_t id = RecordFinishedOp(op);
  ASSERT_NE(id, 0u);
  const std::vector<abi::OpEvent> events = Drain();
  ASSERT_EQ(events.size(), 2u);
  const abi::OpEvent& launch = events[0];
  const abi::OpEvent& complete = events[1];
  EXPECT_EQ(launch.kind, static_cast<uint8_t>(abi::EventKind::kLaunch));
  EXPECT_EQ(complete.kind, static_cast<uint8_t>(abi::EventKind::kComplete));
  for (const abi::OpEvent* e : {&launch, &complete}) {
    EXPECT_EQ(e->op_id, id);
    EXPECT_EQ(e->parent_op_id, 77u);
    EXPECT_EQ(e->name_id, op.name_id);
    EXPECT_EQ(e->tag_id, op.tag_id);
    EXPECT_EQ(e->target_kind, static_cast<uint8_t>(abi::TargetKind::kGpu));
    EXPECT_EQ(e->device_id, 1);
    EXPECT_EQ(e->stream, 7u);
  }
  EXPECT_EQ(launch.ts, op.launch_ts);
  EXPECT_EQ(complete.ts, op.complete_ts);
  EXPECT_EQ(complete.arg, 250u);
  EXPECT_EQ(complete.flags & abi::kFlagDeviceDuration, abi::kFlagDeviceDuration);
}

TEST_F(FinishedOpTest, LevelOff_NothingRecorded) {
  SetLevel(Level::kOff);
  EXPECT_EQ(RecordFinishedOp(Kernel()), 0u);
  EXPECT_TRUE(Drain().empty());
}

TEST_F(FinishedOpTest, Malicious_CompleteBeforeLaunchOrNoNameOrBadTarget_Refused) {
  FinishedOp backwards = Kernel();
  backwards.complete_ts = backwards.launch_ts - 1;
  FinishedOp unnamed = Kernel();
  unnamed.name_id = 0;
  FinishedOp bad_target = Kernel();
  bad_target.placement.target = static_cast<Target>(9);
  EXPECT_EQ(RecordFinishedOp(backwards), 0u);
  EXPECT_EQ(RecordFinishedOp(unnamed), 0u);
  EXPECT_EQ(RecordFinishedOp(bad_target), 0u);
  EXPECT_TRUE(Drain().empty());
}

TEST_F(FinishedOpTest, InsideScopedOp_CurrentOpIdIsThatOp) {
  static OpSite site("outer");
  EXPECT_EQ(CurrentOpId(), 0u);
  ScopedOp outer(site);
  EXPECT_EQ(CurrentOpId(), outer.id());
}

}  // namespace
}  // namespace optrace
