// The producer library in this very process: ops, levels, ids, strings,
// full rings, thread exit and fork, read back through the real reader.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "optrace/reader/string_table_reader.h"
#include "segment_reading.h"

namespace optrace {
namespace {

using testing::AttachOrFail;
using testing::DrainAll;

// Reads this process's own segment as a consumer would.
class OwnSegment {
 public:
  OwnSegment() {
    optrace::GetLevel();  // make sure the segment exists
    segment_ = AttachOrFail(optrace::SegmentNameOrEmpty());
    if (segment_) {
      drainer_ = std::make_unique<reader::SegmentDrainer>(*segment_);
      strings_ = std::make_unique<reader::StringTableReader>(*segment_);
    }
  }
  bool ok() const { return segment_ != nullptr; }
  std::vector<abi::OpEvent> Drain() {
    return DrainAll(*drainer_, reader::DrainMode::kLive, &stats);
  }
  const std::string& Str(uint32_t id) { return strings_->Get(id, &stats); }
  reader::AttachedSegment& segment() { return *segment_; }

  reader::ReaderStats stats;

 private:
  std::unique_ptr<reader::AttachedSegment> segment_;
  std::unique_ptr<reader::SegmentDrainer> drainer_;
  std::unique_ptr<reader::StringTableReader> strings_;
};

// Runs `fn` on a fresh thread (a thread of its own claims its own ring).
template <typename F>
void OnNewThread(F fn) {
  std::thread t(fn);
  t.join();
}

class ProducerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    optrace::SetLevel(optrace::Level::kTrace);
    ASSERT_TRUE(own_.ok());
    own_.Drain();  // start from an empty view
  }
  void TearDown() override { optrace::SetLevel(optrace::Level::kOff); }
  OwnSegment own_;
};

TEST_F(ProducerTest, ScopedOp_LevelTrace_LaunchAndCompleteWithParentNameTagAndLocation) {
  uint64_t outer_id = 0, inner_id = 0;
  OnNewThread([&] {
    static OpSite outer_site("outer_op", "outer_tag_1x2_f32");
    static OpSite inner_site("inner_op");
    ScopedOp outer(outer_site, Placement::Cpu(0));
    outer_id = outer.id();
    {
      ScopedOp inner(inner_site, Placement::Gpu(2, 9));
      inner_id = inner.id();
    }
  });
  ASSERT_NE(outer_id, 0u);
  ASSERT_NE(inner_id, 0u);
  const auto events = own_.Drain();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, static_cast<uint8_t>(abi::EventKind::kLaunch));
  EXPECT_EQ(events[0].op_id, outer_id);
  EXPECT_EQ(events[0].parent_op_id, 0u);
  EXPECT_EQ(own_.Str(events[0].name_id), "outer_op");
  EXPECT_EQ(own_.Str(events[0].tag_id), "outer_tag_1x2_f32");
  EXPECT_NE(own_.Str(events[0].srcloc_id).find("producer_test.cc:"), std::string::npos);
  EXPECT_EQ(events[0].target_kind, static_cast<uint8_t>(abi::TargetKind::kCpu));
  EXPECT_EQ(events[1].op_id, inner_id);
  EXPECT_EQ(events[1].parent_op_id, outer_id);
  EXPECT_EQ(events[1].target_kind, static_cast<uint8_t>(abi::TargetKind::kGpu));
  EXPECT_EQ(events[1].device_id, 2);
  EXPECT_EQ(events[1].stream, 9u);
  EXPECT_EQ(events[2].kind, static_cast<uint8_t>(abi::EventKind::kComplete));
  EXPECT_EQ(events[2].op_id, inner_id);
  EXPECT_EQ(events[3].op_id, outer_id);
  EXPECT_LE(events[0].ts, events[1].ts);
  EXPECT_LE(events[2].ts, events[3].ts);
  EXPECT_EQ(events[0].thread_id, events[3].thread_id);
  EXPECT_EQ(own_.stats.Violations(), 0u);
}

TEST_F(ProducerTest, ScopedOp_LevelOff_IdZeroAndNothingWritten) {
  optrace::SetLevel(optrace::Level::kOff);
  EXPECT_EQ(optrace::GetLevel(), optrace::Level::kOff);
  uint64_t id = 1;
  OnNewThread([&] {
    OPTRACE_SCOPED_OP(op, "filtered");
    id = op.id();
  });
  EXPECT_EQ(id, 0u);
  EXPECT_TRUE(own_.Drain().empty());
}

TEST_F(ProducerTest, ScopedOp_LevelLoweredWhileOpen_CompleteStillWritten) {
  uint64_t id = 0;
  OnNewThread([&] {
    OPTRACE_SCOPED_OP(op, "lowered");
    id = op.id();
    optrace::SetLevel(optrace::Level::kOff);
  });
  const auto events = own_.Drain();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].kind, static_cast<uint8_t>(abi::EventKind::kComplete));
  EXPECT_EQ(events[1].op_id, id);
}

TEST_F(ProducerTest, AsyncOp_CompletedOnAnotherThread_PairedWithDeviceDuration) {
  static OpSite site("kernel");
  uint64_t id = 0;
  OnNewThread([&] { id = BeginOp(site, Placement::Gpu(0, 3)); });
  ASSERT_NE(id, 0u);
  OnNewThread([&] { EndOp(site, id, Placement::Gpu(0, 3), 0, 12345); });
  auto events = own_.Drain();
  ASSERT_EQ(events.size(), 2u);
  // Rings are drained in turn, so the two halves may come in either order.
  if (events[0].kind != static_cast<uint8_t>(abi::EventKind::kLaunch)) {
    std::swap(events[0], events[1]);
  }
  EXPECT_EQ(events[0].op_id, id);
  EXPECT_EQ(events[1].op_id, id);
  EXPECT_EQ(events[1].kind, static_cast<uint8_t>(abi::EventKind::kComplete));
  EXPECT_NE(events[0].thread_id, events[1].thread_id);
  EXPECT_EQ(events[1].arg, 12345u);
  EXPECT_TRUE(events[1].flags & abi::kFlagDeviceDuration);
}

TEST_F(ProducerTest, OpIds_ManyThreads_UniqueAndIncreasingPerThread) {
  constexpr int kThreads = 4, kOps = 3000;
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&finished] {
      for (int i = 0; i < kOps; ++i) {
        OPTRACE_SCOPED_OP(op, "id_op");
      }
      finished.fetch_add(1);
    });
  }
  std::vector<abi::OpEvent> events;
  auto take = [&] {
    auto more = own_.Drain();
    events.insert(events.end(), more.begin(), more.end());
  };
  while (finished.load() < kThreads) take();  // drain while they write
  for (auto& t : threads) t.join();
  take();
  ASSERT_EQ(optrace::GetDropCounts().ring_full, 0u) << "rings are large enough for this test";
  std::set<uint64_t> ids;
  std::map<uint32_t, uint64_t> last_by_thread;
  for (const auto& e : events) {
    if (e.kind != static_cast<uint8_t>(abi::EventKind::kLaunch)) continue;
    EXPECT_TRUE(ids.insert(e.op_id).second) << "duplicate id " << e.op_id;
    EXPECT_GT(e.op_id, last_by_thread[e.thread_id]);
    last_by_thread[e.thread_id] = e.op_id;
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads * kOps));
}

TEST_F(ProducerTest, Intern_ConcurrentThreads_SameStringSameIdAndReadable) {
  constexpr int kThreads = 8, kShared = 200;
  std::vector<std::vector<uint32_t>> shared_ids(kThreads);
  std::vector<uint32_t> own_ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kShared; ++i) {
        shared_ids[t].push_back(optrace::Intern("shared_string_" + std::to_string(i)));
      }
      own_ids[t] = optrace::Intern("own_string_" + std::to_string(t));
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(shared_ids[t], shared_ids[0]);
  EXPECT_EQ(std::set<uint32_t>(own_ids.begin(), own_ids.end()).size(),
            static_cast<size_t>(kThreads));
  own_.Drain();  // refreshes the string count the reader validates against
  for (int i = 0; i < kShared; ++i) {
    EXPECT_EQ(own_.Str(shared_ids[0][i]), "shared_string_" + std::to_string(i));
  }
  EXPECT_EQ(optrace::Intern(""), abi::kStringNone);
  EXPECT_EQ(optrace::Intern("shared_string_7"), shared_ids[0][7]);
}

TEST_F(ProducerTest, Ring_FullWithoutConsumer_DropsCountedExactlyAndFlagged) {
  const uint32_t capacity = own_.segment().geometry().ring_capacity;
  const uint64_t before = optrace::GetDropCounts().ring_full;
  uint64_t first_after_drain = 0;
  std::atomic<int> phase{0};
  std::thread t([&] {
    // capacity + 100 events: capacity/2 + 50 ops.
    for (uint32_t i = 0; i < capacity / 2 + 50; ++i) {
      OPTRACE_SCOPED_OP(op, "fill");
    }
    phase = 1;
    while (phase != 2) std::this_thread::yield();
    OPTRACE_SCOPED_OP(op, "after_drain");
    first_after_drain = op.id();
  });
  while (phase != 1) std::this_thread::yield();
  EXPECT_EQ(optrace::GetDropCounts().ring_full - before, 100u);
  const auto filled = own_.Drain();
  EXPECT_EQ(filled.size(), capacity);
  EXPECT_EQ(own_.stats.events_dropped_ring_full, optrace::GetDropCounts().ring_full);
  phase = 2;
  t.join();
  const auto after = own_.Drain();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].op_id, first_after_drain);
  EXPECT_TRUE(after[0].flags & abi::kFlagDropsBefore);
  EXPECT_FALSE(after[1].flags & abi::kFlagDropsBefore);
}

TEST_F(ProducerTest, ThreadExit_ThreeTimesMoreThreadsThanRings_RingsReusedNothingDropped) {
  const uint32_t rings = own_.segment().geometry().ring_count;
  const uint64_t before = optrace::GetDropCounts().no_ring;
  for (uint32_t i = 0; i < 3 * rings; ++i) {
    OnNewThread([] {
      for (int k = 0; k < 10; ++k) {
        OPTRACE_SCOPED_OP(op, "short_lived");
      }
    });
  }
  EXPECT_EQ(optrace::GetDropCounts().no_ring, before);
  EXPECT_EQ(own_.Drain().size(), 3u * rings * 20);
}

TEST_F(ProducerTest, Fork_ChildTraces_OwnSegmentAndParentRingsUntouched) {
  OnNewThread([] { OPTRACE_SCOPED_OP(op, "before_fork"); });
  own_.Drain();
  const std::string parent_segment = optrace::SegmentNameOrEmpty();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    // In the child: trace, then report our segment and what it holds.
    { OPTRACE_SCOPED_OP(op, "in_child"); }
    std::string report = optrace::SegmentNameOrEmpty();
    auto seg = reader::AttachedSegment::Attach(report, testing::TestPolicy());
    size_t n = 0;
    if (seg.ok()) {
      reader::SegmentDrainer drainer(*seg.value());
      reader::ReaderStats stats;
      n = DrainAll(drainer, reader::DrainMode::kLive, &stats).size();
    }
    report += " " + std::to_string(n) + "\n";
    [[maybe_unused]] ssize_t w = ::write(fds[1], report.data(), report.size());
    std::exit(0);
  }
  ::close(fds[1]);
  char buf[256] = {};
  const ssize_t r = ::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_GT(r, 0);
  const std::string report(buf);
  const std::string child_segment = report.substr(0, report.find(' '));
  EXPECT_NE(child_segment, parent_segment);
  EXPECT_NE(child_segment.find("." + std::to_string(child) + "."), std::string::npos);
  EXPECT_EQ(report.substr(report.find(' ') + 1), "2\n") << "child's segment holds its own op";
  EXPECT_TRUE(own_.Drain().empty()) << "the child wrote into the parent's segment";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(ProducerTest, CApi_ScopedBeginEnd_ParentRestoredAndBadArgsRejected) {
  uint32_t name = 0, loc = 0;
  ASSERT_EQ(optrace_intern("c_op", 4, &name), 0);
  ASSERT_EQ(optrace_intern_location("file.c", 42, &loc), 0);
  EXPECT_EQ(optrace_intern(nullptr, 3, &name), -EINVAL);
  EXPECT_EQ(optrace_intern("x", 0, &name), -EINVAL);
  EXPECT_EQ(optrace_set_level(9), -EINVAL);
  EXPECT_EQ(optrace_get_level(), OPTRACE_LEVEL_TRACE);
  uint64_t outer = 0, inner = 0, sibling = 0;
  OnNewThread([&] {
    optrace_op_desc d = {name, 0, loc, OPTRACE_TARGET_GPU, 1, 5};
    outer = optrace_op_begin(&d, OPTRACE_OP_SCOPED);
    inner = optrace_op_begin(&d, OPTRACE_OP_SCOPED);
    optrace_op_end(&d, inner, 777);
    sibling = optrace_op_begin(&d, 0);
    optrace_op_end(&d, sibling, 0);
    optrace_op_end(&d, outer, 0);
    optrace_op_desc bad = {name, 0, 0, 9, 0, 0};
    EXPECT_EQ(optrace_op_begin(&bad, 0), 0u);
    EXPECT_EQ(optrace_op_end(nullptr, 1, 0), -EINVAL);
  });
  const auto events = own_.Drain();
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[1].op_id, inner);
  EXPECT_EQ(events[1].parent_op_id, outer);
  EXPECT_EQ(events[2].arg, 777u);
  EXPECT_EQ(events[3].op_id, sibling);
  EXPECT_EQ(events[3].parent_op_id, outer) << "parent restored after the inner op ended";
  EXPECT_EQ(own_.Str(events[0].name_id), "c_op");
  EXPECT_EQ(own_.Str(events[0].srcloc_id), "file.c:42");
}

TEST_F(ProducerTest, MarkAndCounter_RecordedOnlyAtOrBelowLiveLevel) {
  static OpSite mark_site("step_done");
  static OpSite counter_site("pool_bytes");
  optrace::SetLevel(optrace::Level::kInfo);
  OnNewThread([] {
    Mark(mark_site, Level::kInfo);
    Mark(mark_site, Level::kDebug);  // filtered
    Counter(counter_site, -42, Level::kInfo);
    OPTRACE_SCOPED_OP(op, "filtered_at_info");
  });
  const auto events = own_.Drain();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, static_cast<uint8_t>(abi::EventKind::kMark));
  EXPECT_EQ(events[0].level, static_cast<uint8_t>(abi::LevelValue::kInfo));
  EXPECT_EQ(events[1].kind, static_cast<uint8_t>(abi::EventKind::kCounter));
  EXPECT_EQ(static_cast<int64_t>(events[1].arg), -42);
}

TEST_F(ProducerTest, Segment_Mode0600WhateverTheUmask) {
  struct stat st {};
  ASSERT_EQ(::stat((std::string("/dev/shm/") + optrace::SegmentNameOrEmpty()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::getuid());
}

TEST_F(ProducerTest, SetLevel_NoDaemon_LiveWordAndRequestedFieldUpdated) {
  optrace::SetLevel(optrace::Level::kDebug);
  EXPECT_EQ(optrace::GetLevel(), optrace::Level::kDebug);
  EXPECT_EQ(own_.segment().ReadLevelWord(), static_cast<uint32_t>(abi::LevelValue::kDebug));
  const auto fields = own_.segment().ReadProducerFields();
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->requested_level, static_cast<uint32_t>(abi::LevelValue::kDebug));
}

}  // namespace
}  // namespace optrace
