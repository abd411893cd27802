// Draining rings: order across wrap-around, exact accounting, and hostile
// ring contents that must be counted, never trusted.
#include "optrace/reader/segment_drainer.h"

#include <gtest/gtest.h>

#include "fake_producer.h"
#include "optrace/reader/string_table_reader.h"
#include "segment_reading.h"

namespace optrace::reader {
namespace {

using testing::FakeProducer;
using testing::MonotonicNowNs;
using K = abi::EventKind;

class SegmentDrainerTest : public ::testing::Test {
 protected:
  void Attach() {
    attached_ = testing::AttachOrFail(p_.name());
    ASSERT_NE(attached_, nullptr);
    drainer_ = std::make_unique<SegmentDrainer>(*attached_);
  }
  std::vector<abi::OpEvent> Drain(size_t budget = 1 << 20, DrainMode mode = DrainMode::kLive,
                                  uint64_t now = MonotonicNowNs()) {
    std::vector<abi::OpEvent> out;
    drainer_->Drain(budget, mode, now, &out, &stats_);
    return out;
  }

  FakeProducer p_{2, 64};
  std::unique_ptr<AttachedSegment> attached_;
  std::unique_ptr<SegmentDrainer> drainer_;
  ReaderStats stats_;
};

TEST_F(SegmentDrainerTest, Wraparound_HundredTimesCapacity_EveryEventReadInOrder) {
  Attach();
  const uint32_t name = p_.Intern("op");
  uint64_t next_expected = 1;
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 50; ++i) {
      p_.Write(0, FakeProducer::Event(K::kLaunch, 50 * round + i + 1, name));
    }
    for (const auto& e : Drain()) EXPECT_EQ(e.op_id, next_expected++);
  }
  EXPECT_EQ(next_expected, 5001u);
  EXPECT_EQ(stats_.events_read, 5000u);
  EXPECT_EQ(stats_.Violations(), 0u);
  EXPECT_EQ(p_.ring(0).read_pos.load(), 5000u);
}

TEST_F(SegmentDrainerTest, Wraparound_StampAt2To32_NoEventLost) {
  const uint64_t start = (1ULL << 32) - 40;
  p_.SetPositions(0, start);
  Attach();
  for (uint64_t i = 1; i <= 60; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  const auto events = Drain();
  ASSERT_EQ(events.size(), 60u);
  EXPECT_EQ(events[39].stamp, 0u) << "the stamp of position 2^32 - 1 wraps to 0";
  EXPECT_EQ(events.back().op_id, 60u);
  EXPECT_EQ(stats_.Violations(), 0u);
}

TEST_F(SegmentDrainerTest, Budget_SplitsAcrossPassesWithoutLoss) {
  Attach();
  for (uint64_t i = 1; i <= 40; ++i) {
    p_.Write(i % 2, FakeProducer::Event(K::kLaunch, i, 0));
  }
  std::vector<abi::OpEvent> out;
  EXPECT_TRUE(drainer_->Drain(15, DrainMode::kLive, MonotonicNowNs(), &out, &stats_));
  EXPECT_EQ(out.size(), 15u);
  EXPECT_TRUE(drainer_->Drain(15, DrainMode::kLive, MonotonicNowNs(), &out, &stats_));
  EXPECT_FALSE(drainer_->Drain(15, DrainMode::kLive, MonotonicNowNs(), &out, &stats_));
  EXPECT_EQ(out.size(), 40u);
}

TEST_F(SegmentDrainerTest, Malicious_HeadFarBeyondCapacity_ResyncedAndCounted) {
  Attach();
  p_.Write(0, FakeProducer::Event(K::kLaunch, 1, 0));
  p_.ring(0).write_pos.store(1'000'000);
  EXPECT_TRUE(Drain().empty());
  EXPECT_EQ(stats_.ring_corrupt, 1u);
  EXPECT_EQ(stats_.events_lost_resync, 1'000'000u);
  // The ring carries on from the resynchronised position.
  p_.Write(0, FakeProducer::Event(K::kLaunch, 2, 0));
  const auto events = Drain();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op_id, 2u);
}

TEST_F(SegmentDrainerTest, Malicious_HeadBehindTail_ResyncedAndCounted) {
  Attach();
  for (uint64_t i = 1; i <= 10; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  Drain();
  p_.ring(0).write_pos.store(3);
  EXPECT_TRUE(Drain().empty());
  EXPECT_EQ(stats_.ring_corrupt, 1u);
}

TEST_F(SegmentDrainerTest, Malicious_StringIdsOutOfRange_PlaceholderAndCounted) {
  Attach();
  const uint32_t good = p_.Intern("good_name");
  auto e = FakeProducer::Event(K::kLaunch, 1, 5000);
  e.tag_id = good;
  e.srcloc_id = 0xFFFFFF00;
  p_.Write(0, e);
  const auto events = Drain();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(stats_.unknown_string_ids, 2u);
  StringTableReader strings(*attached_);
  EXPECT_EQ(strings.Get(events[0].name_id, &stats_), "<invalid string id>");
  EXPECT_EQ(strings.Get(events[0].tag_id, &stats_), "good_name");
  EXPECT_EQ(strings.Get(events[0].srcloc_id, &stats_), "<invalid string id>");
}

TEST_F(SegmentDrainerTest, Malicious_StringEntryOutsideBlob_PlaceholderAndCounted) {
  const uint32_t id = p_.Intern("victim");
  Attach();
  p_.segment().string_entries()[id] = abi::StringEntry{4000, 500};
  StringTableReader strings(*attached_);
  EXPECT_EQ(strings.Get(id, &stats_), "<bad string " + std::to_string(id) + ">");
  EXPECT_EQ(stats_.bad_string_entries, 1u);
  // Cached: read once, never re-read, never counted twice.
  strings.Get(id, &stats_);
  EXPECT_EQ(stats_.bad_string_entries, 1u);
}

TEST_F(SegmentDrainerTest, Malicious_StringWithControlBytes_Sanitized) {
  const uint32_t id = p_.Intern("evil\x1b[2J\xff");
  Attach();
  StringTableReader strings(*attached_);
  EXPECT_EQ(strings.Get(id, &stats_), "evil?[2J\xEF\xBF\xBD");
}

TEST_F(SegmentDrainerTest, Malicious_TornSlotLive_WaitedForThenSkipped) {
  Attach();
  for (uint64_t i = 1; i <= 3; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  p_.segment().slots(0)[1].stamp = 12345;  // position 1 looks unwritten
  const uint64_t t0 = MonotonicNowNs();
  auto events = Drain(1 << 20, DrainMode::kLive, t0);
  ASSERT_EQ(events.size(), 1u) << "stops before the torn slot";
  EXPECT_TRUE(Drain(1 << 20, DrainMode::kLive, t0 + 1000).empty()) << "still within the grace";
  events = Drain(1 << 20, DrainMode::kLive, t0 + SegmentDrainer::kTornGraceNs);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op_id, 3u);
  EXPECT_EQ(stats_.slots_torn, 1u);
}

TEST_F(SegmentDrainerTest, Malicious_TornSlotFinal_SkippedAtOnce) {
  Attach();
  for (uint64_t i = 1; i <= 3; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  p_.segment().slots(0)[0].stamp = 0;
  const auto events = Drain(1 << 20, DrainMode::kFinal);
  EXPECT_EQ(events.size(), 2u);
  EXPECT_EQ(stats_.slots_torn, 1u);
}

TEST_F(SegmentDrainerTest, Malicious_UnknownKindZeroIdBadLevel_CountedAndHandled) {
  Attach();
  auto bad_kind = FakeProducer::Event(K::kLaunch, 1, 0);
  bad_kind.kind = 9;
  auto zero_id = FakeProducer::Event(K::kComplete, 0, 0);
  auto bad_level = FakeProducer::Event(K::kLaunch, 3, 0);
  bad_level.level = 200;
  bad_level.target_kind = 77;
  for (const auto& e : {bad_kind, zero_id, bad_level}) p_.Write(0, e);
  const auto events = Drain();
  ASSERT_EQ(events.size(), 1u) << "only the fixable event is kept";
  EXPECT_EQ(events[0].level, abi::kMaxLevel);
  EXPECT_EQ(events[0].target_kind, 0);
  EXPECT_EQ(stats_.events_invalid, 3u);
}

TEST_F(SegmentDrainerTest, DropCounters_AccumulatedAndBackwardsCounted) {
  Attach();
  p_.ring(0).dropped.store(10);
  p_.header().events_dropped_no_ring.store(4);
  Drain();
  EXPECT_EQ(stats_.events_dropped_ring_full, 10u);
  EXPECT_EQ(stats_.events_dropped_no_ring, 4u);
  p_.ring(0).dropped.store(15);
  Drain();
  EXPECT_EQ(stats_.events_dropped_ring_full, 15u);
  p_.ring(0).dropped.store(2);
  Drain();
  EXPECT_EQ(stats_.events_dropped_ring_full, 15u);
  EXPECT_EQ(stats_.counters_went_backwards, 1u);
}

TEST_F(SegmentDrainerTest, NamesCapped_AccumulatedAndBackwardsCounted) {
  Attach();
  Drain();
  EXPECT_EQ(stats_.names_capped, 0u);  // as a producer older than minor 2 leaves it
  p_.header().names_capped.store(90);
  Drain();
  EXPECT_EQ(stats_.names_capped, 90u);
  p_.header().names_capped.store(3);
  Drain();
  EXPECT_EQ(stats_.names_capped, 90u);
  EXPECT_EQ(stats_.counters_went_backwards, 1u);
}

TEST_F(SegmentDrainerTest, RetiredRing_DrainedCompletely_BecomesFree) {
  Attach();
  p_.Write(1, FakeProducer::Event(K::kLaunch, 1, 0));
  p_.ring(1).state.store(static_cast<uint32_t>(abi::RingState::kRetired));
  Drain();
  EXPECT_EQ(p_.ring(1).state.load(), static_cast<uint32_t>(abi::RingState::kFree));
  p_.ring(0).state.store(42);
  Drain();
  Drain();
  EXPECT_EQ(stats_.bad_ring_states, 1u) << "counted once per ring, not per pass";
}

TEST_F(SegmentDrainerTest, Restart_ResumesFromSharedReadPosition) {
  Attach();
  for (uint64_t i = 1; i <= 5; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  Drain();
  for (uint64_t i = 6; i <= 8; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  // A new consumer (a restarted daemon) continues where the last one stopped.
  SegmentDrainer second(*attached_);
  std::vector<abi::OpEvent> out;
  second.Drain(100, DrainMode::kLive, MonotonicNowNs(), &out, &stats_);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].op_id, 6u);
}

TEST_F(SegmentDrainerTest, ReleaseOnCommit_ReadPosWaitsForCommitUnlessRingHalfFull) {
  attached_ = testing::AttachOrFail(p_.name());
  ASSERT_NE(attached_, nullptr);
  SegmentDrainer drainer(*attached_, ReleasePolicy::kOnCommit);
  std::vector<abi::OpEvent> out;
  for (uint64_t i = 1; i <= 10; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  drainer.Drain(100, DrainMode::kLive, MonotonicNowNs(), &out, &stats_);
  EXPECT_EQ(out.size(), 10u);
  EXPECT_EQ(drainer.consumed_position(0), 10u);
  EXPECT_EQ(p_.ring(0).read_pos.load(), 0u) << "nothing is durable yet";
  drainer.MarkCommitted(0, 6);
  EXPECT_EQ(p_.ring(0).read_pos.load(), 6u);
  // More than half the ring (64) outstanding: released at once.
  for (uint64_t i = 11; i <= 45; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  drainer.Drain(100, DrainMode::kLive, MonotonicNowNs(), &out, &stats_);
  EXPECT_EQ(p_.ring(0).read_pos.load(), 45u);
}

TEST_F(SegmentDrainerTest, ResumeAt_CommittedBeyondReleased_SkipsWhatWasStored) {
  for (uint64_t i = 1; i <= 10; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  p_.ring(0).read_pos.store(4);  // a previous consumer released 4, stored 7
  Attach();
  EXPECT_EQ(drainer_->ResumeAt(0, 7), 0u);
  const auto events = Drain();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].op_id, 8u);
}

TEST_F(SegmentDrainerTest, ResumeAt_ReleasedBeyondCommitted_ReportsTheLoss) {
  for (uint64_t i = 1; i <= 10; ++i) p_.Write(0, FakeProducer::Event(K::kLaunch, i, 0));
  p_.ring(0).read_pos.store(9);  // released 9, but only 5 were stored
  Attach();
  EXPECT_EQ(drainer_->ResumeAt(0, 5), 4u);
  EXPECT_EQ(Drain().size(), 1u);
}

}  // namespace
}  // namespace optrace::reader
