// The drain loop in-process, on a thread of its own, over real parts: a
// control segment in /dev/shm for this test binary's namespace, a real
// SpanStore in a temp folder, and real producer processes whose segments
// the loop discovers, attaches, drains and finishes by itself. Outcomes are
// awaited by polling the store and the loop's call queue, with deadlines far
// beyond what a loaded machine needs: nothing here measures time.
#include "drain/drain_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "daemon_process.h"
#include "held_producer.h"
#include "segment_reading.h"
#include "store_test_data.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace::daemon {
namespace {

using namespace std::chrono_literals;
using abi::LevelValue;
using testing::WaitUntil;

constexpr long kIterations = 100;
// A producer's ops: one "start" op, then outer + inner per iteration.
constexpr uint64_t kSpans = 2 * kIterations + 1;
constexpr std::chrono::milliseconds kDeadline = 60s;

// The daemon that the segment of `producer` says is attached (0: none),
// read from the header through the test's own mapping.
uint32_t DaemonPidOf(HeldProducer& producer) {
  const auto* header =
      reinterpret_cast<const abi::SegmentHeader*>(producer.session().segment().base());
  // Acquire: pairs with the release store of WriteDaemonPresence.
  return header->daemon_pid.load(std::memory_order_acquire);
}

class DrainLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
    auto control = ControlSegment::Create("/dev/shm", testing::TestPolicy().ns);
    ASSERT_TRUE(control.ok()) << control.status().message();
    control_ = std::move(control).value();
    reader_ = testing::OpenReader(path_);
    ASSERT_NE(reader_, nullptr);
  }

  void TearDown() override {
    if (loop_ != nullptr) {
      loop_->RequestStop();
      loop_->Join();
    }
  }

  // Starts the loop over the store, default level off, continuing what
  // the store holds (nothing: each test has a database of its own).
  void StartLoop() {
    auto loop_reader = SpanReader::Open(path_);
    ASSERT_TRUE(loop_reader.ok()) << loop_reader.status().message();
    auto policy = LevelPolicy::Create(LevelValue::kOff, {});
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    auto resume = store_->LoadResumeState();
    ASSERT_TRUE(resume.ok()) << resume.status().message();
    DrainOptions options;
    options.attach = testing::TestPolicy();
    loop_ = std::make_unique<DrainLoop>(std::move(options), store_.get(),
                                        std::move(loop_reader).value(), control_.get(),
                                        policy.value(), nullptr, nullptr);
    const Status started = loop_->Start(std::move(resume).value());
    ASSERT_TRUE(started.ok()) << started.message();
  }

  // The loop's live record of process `pid`, once it has attached it
  // (nullopt when it has not within the deadline).
  std::optional<SessionRecord> WaitLive(pid_t pid) {
    std::optional<SessionRecord> found;
    WaitUntil(
        [&] {
          const auto live = loop_->LiveProducers();
          if (!live) return false;
          const auto it = std::find_if(live->begin(), live->end(), [&](const LiveProducer& p) {
            return p.record.pid == static_cast<uint32_t>(pid);
          });
          if (it != live->end()) found = it->record;
          return found.has_value();
        },
        kDeadline);
    return found;
  }

  // The stored record of the session of `segment_name`, once `done` holds
  // for it (the last record read otherwise; nullopt when none was stored).
  std::optional<SessionRecord> WaitStored(const std::string& segment_name,
                                          const std::function<bool(const SessionRecord&)>& done) {
    std::optional<SessionRecord> stored;
    WaitUntil(
        [&] {
          auto record = reader_->SessionBySegment(segment_name);
          if (record.ok()) stored = record.value();
          return stored.has_value() && done(*stored);
        },
        kDeadline);
    return stored;
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SpanStore> store_;
  std::unique_ptr<ControlSegment> control_;
  std::unique_ptr<SpanReader> reader_;  // the test's own look into the store
  StringDictionary dictionary_;         // of the held producers' own sessions
  std::unique_ptr<DrainLoop> loop_;
};

TEST_F(DrainLoopTest, Run_ProducerRecordsAndExits_EverySpanStoredAndSessionExited) {
  StartLoop();
  // The producer creates its segment with its "start" op, then waits to
  // be told to run its ops: the loop attaches it before it records them.
  auto producer =
      testing::StartTestProducer({"--ops", std::to_string(kIterations), "--wait-stdin"});
  const auto segment_name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(segment_name.has_value()) << producer->stderr_text();
  const auto live = WaitLive(producer->pid());
  ASSERT_TRUE(live.has_value()) << "the loop never attached " << *segment_name;
  producer->WriteStdin("\n");
  const auto ended = producer->Wait(kDeadline);
  ASSERT_TRUE(ended.has_value() && ended->exited && ended->code == 0) << producer->stderr_text();

  const auto stored = WaitStored(
      *segment_name, [](const SessionRecord& r) { return r.state != SessionState::kRunning; });
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->id, live->id);
  EXPECT_EQ(stored->state, SessionState::kExited) << "a clean exit";
  EXPECT_EQ(stored->spans, kSpans);
  EXPECT_EQ(stored->open_ops, 0u);
  const std::vector<Span> spans = testing::ReadSpans(*reader_, stored->id);
  EXPECT_EQ(spans.size(), kSpans);
  EXPECT_TRUE(std::all_of(spans.begin(), spans.end(),
                          [](const Span& s) { return s.status == SpanStatus::kOk; }));
  EXPECT_TRUE(WaitUntil([&] { return !testing::SegmentExists(producer->pid()); }, kDeadline))
      << "a finished session's segment is removed once its end is stored";
}

TEST_F(DrainLoopTest, Run_ProducerKilledHoldingAnOp_SessionCrashedWithTheOpIncomplete) {
  StartLoop();
  HeldProducer producer(0, kIterations, &dictionary_);
  ASSERT_TRUE(producer.ok());
  const auto running =
      WaitStored(producer.segment_name(), [](const SessionRecord& r) { return r.spans == kSpans; });
  ASSERT_TRUE(running.has_value());
  ASSERT_EQ(running->spans, kSpans) << "the ops before the held one, stored while it runs";
  EXPECT_EQ(running->state, SessionState::kRunning);
  producer.Kill();

  const auto stored = WaitStored(producer.segment_name(), [](const SessionRecord& r) {
    return r.state != SessionState::kRunning;
  });
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->state, SessionState::kCrashed) << "SIGKILL: no clean exit";
  EXPECT_EQ(stored->open_ops, 1u) << "the held op";
  EXPECT_EQ(stored->spans, kSpans + 1);
  const std::vector<Span> spans = testing::ReadSpans(*reader_, stored->id);
  ASSERT_EQ(spans.size(), kSpans + 1);
  EXPECT_EQ(std::count_if(spans.begin(), spans.end(),
                          [](const Span& s) { return s.status == SpanStatus::kIncomplete; }),
            1);
}

TEST_F(DrainLoopTest, ApplyLevelChange_ForOneProducer_ReachesItsLiveWordOnly) {
  StartLoop();
  HeldProducer target(0, 1, &dictionary_);
  HeldProducer other(0, 1, &dictionary_);
  ASSERT_TRUE(target.ok() && other.ok());
  const auto target_pid = static_cast<pid_t>(target.session().record().pid);
  ASSERT_TRUE(WaitLive(target_pid).has_value());
  ASSERT_TRUE(WaitLive(static_cast<pid_t>(other.session().record().pid)).has_value());
  const auto word = [](HeldProducer& p) { return p.session().segment().ReadLevelWord(); };
  ASSERT_EQ(word(target), static_cast<uint32_t>(LevelValue::kTrace)) << "what it asked for";

  LevelChange change;
  change.pid = static_cast<uint32_t>(target_pid);
  change.level = LevelValue::kError;
  EXPECT_EQ(loop_->ApplyLevelChange(change), std::optional<uint32_t>(1u));
  EXPECT_TRUE(WaitUntil([&] { return word(target) == static_cast<uint32_t>(LevelValue::kError); },
                        kDeadline))
      << "word " << word(target).value_or(0);
  EXPECT_EQ(word(other), static_cast<uint32_t>(LevelValue::kTrace));
  const auto live = loop_->LiveProducers();
  ASSERT_TRUE(live.has_value());
  for (const LiveProducer& p : *live) {
    EXPECT_EQ(p.live, p.record.pid == change.pid ? LevelValue::kError : LevelValue::kTrace);
  }
}

TEST_F(DrainLoopTest, RequestStop_LiveProducer_StoresItsSpansDetachesAndJoins) {
  StartLoop();
  HeldProducer producer(0, kIterations, &dictionary_);
  ASSERT_TRUE(producer.ok());
  ASSERT_TRUE(WaitLive(static_cast<pid_t>(producer.session().record().pid)).has_value());
  EXPECT_EQ(DaemonPidOf(producer), static_cast<uint32_t>(::getpid())) << "attached by this loop";
  loop_->RequestStop();
  loop_->Join();
  loop_.reset();

  EXPECT_EQ(DaemonPidOf(producer), 0u) << "detached: the producer may set its own level again";
  const auto stored = reader_->SessionBySegment(producer.segment_name());
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  ASSERT_TRUE(stored.value().has_value());
  EXPECT_EQ(stored.value()->state, SessionState::kRunning) << "left for the next daemon";
  EXPECT_EQ(stored.value()->spans, kSpans) << "everything read before it stopped is stored";
  EXPECT_TRUE(testing::SegmentExists(producer.session().record().pid))
      << "the live producer's segment stays";
}

}  // namespace
}  // namespace optrace::daemon
