// The batch pipeline over real parts: real producer processes drained
// through ProducerSession, cut into batches that a real SpanStore commits to
// a SQLite file in a temp folder, read back through SpanReader.
#include "drain/batch_pipeline.h"

#include <gtest/gtest.h>
#include <time.h>

#include "common/clock_now.h"
#include "held_producer.h"
#include "storage/span_reader.h"
#include "store_test_data.h"
#include "temp_folder.h"
#include "write_lock_holder.h"

namespace optrace::daemon {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr long kIterations = 100;
// The producer's ops: one "start" op, then outer + inner per iteration.
constexpr uint64_t kSpans = 2 * kIterations + 1;

class BatchPipelineTest : public ::testing::Test {
 protected:
  void OpenStore(size_t max_queued_batches) {
    auto store = SpanStore::Open({.db_path = path_, .max_queued_batches = max_queued_batches});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
  }

  // Adds a held producer as session `id`, drained to its last event.
  void AddDrained(SessionId id) {
    producers_.push_back(std::make_unique<HeldProducer>(id, kIterations, &dictionary_));
    ASSERT_TRUE(producers_.back()->ok());
    std::unique_ptr<ProducerSession> session = producers_.back()->TakeSession();
    while (session->Drain(1 << 20, reader::DrainMode::kLive, ClockNowNs(CLOCK_MONOTONIC))) {
    }
    sessions_[id] = std::move(session);
  }

  // AddDrained, then the producer is killed and its session finished.
  void AddKilled(SessionId id) {
    AddDrained(id);
    producers_.back()->Kill();
    sessions_[id]->Finish(static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME)),
                          ClockNowNs(CLOCK_MONOTONIC));
  }

  std::optional<SessionRecord> Stored(SessionId id) {
    auto reader = SpanReader::Open(path_);
    EXPECT_TRUE(reader.ok()) << reader.status().message();
    if (!reader.ok()) return std::nullopt;
    auto record = reader.value()->GetSession(id);
    EXPECT_TRUE(record.ok()) << record.status().message();
    return record.ok() ? record.value() : std::nullopt;
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SpanStore> store_;
  StringDictionary dictionary_;
  DaemonCounters counters_;
  std::vector<std::unique_ptr<HeldProducer>> producers_;
  SessionMap sessions_;
};

TEST_F(BatchPipelineTest, Cut_YoungAndSmallBatch_WaitsForItsAgeThenStoresTheSpans) {
  OpenStore(64);
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_,
                         {.max_spans = 1 << 15, .max_age_ms = 20});
  const uint64_t t0 = 1000 * kMs;
  pipeline.StartClock(t0);
  AddDrained(1);
  ASSERT_EQ(sessions_[1]->pending_spans(), kSpans);

  EXPECT_FALSE(pipeline.Cut(t0 + 19 * kMs, sessions_));
  EXPECT_EQ(counters_.batches_submitted.load(), 0u) << "younger than max_age_ms";
  EXPECT_TRUE(sessions_[1]->HasPending());

  EXPECT_FALSE(pipeline.Cut(t0 + 20 * kMs, sessions_));
  EXPECT_EQ(counters_.batches_submitted.load(), 1u);
  EXPECT_FALSE(sessions_[1]->HasPending());
  ASSERT_TRUE(store_->Flush(10'000));
  EXPECT_TRUE(pipeline.ApplyCommits(sessions_).empty()) << "a running session stays";
  const auto stored = Stored(1);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->state, SessionState::kRunning);
  EXPECT_EQ(stored->spans, kSpans);
  EXPECT_EQ(stored->open_ops, 1u) << "the held op";
}

TEST_F(BatchPipelineTest, Cut_SpanLimitReached_CutsBeforeTheBatchIsOld) {
  OpenStore(64);
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_,
                         {.max_spans = kSpans, .max_age_ms = 1'000'000});
  const uint64_t t0 = 1000 * kMs;
  pipeline.StartClock(t0);
  AddDrained(1);
  EXPECT_FALSE(pipeline.Cut(t0, sessions_));
  EXPECT_EQ(counters_.batches_submitted.load(), 1u);
  // Nothing new: no further batch however old.
  EXPECT_FALSE(pipeline.Cut(t0 + 2'000'000 * kMs, sessions_));
  EXPECT_EQ(counters_.batches_submitted.load(), 1u);
}

TEST_F(BatchPipelineTest, ApplyCommits_FinishedSession_ReturnedOnceItsEndIsStored) {
  OpenStore(64);
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_, {});
  pipeline.StartClock(ClockNowNs(CLOCK_MONOTONIC));
  AddKilled(7);
  pipeline.CutSoon();
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), sessions_));
  ASSERT_TRUE(store_->Flush(10'000));
  EXPECT_EQ(pipeline.ApplyCommits(sessions_), std::vector<SessionId>{7});
  EXPECT_TRUE(pipeline.ApplyCommits(sessions_).empty()) << "returned once";
  const auto stored = Stored(7);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->state, SessionState::kCrashed) << "killed, no clean exit";
  EXPECT_EQ(stored->open_ops, 1u) << "the held op, stored as incomplete";
  EXPECT_EQ(stored->spans, kSpans + 1);
}

TEST_F(BatchPipelineTest, Cut_StoreRefuses_ShedsCountsTheEventsAndStoresTheRecordNext) {
  OpenStore(1);
  WriteLockHolder lock(path_);
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_, {.max_spans = 1});
  pipeline.StartClock(ClockNowNs(CLOCK_MONOTONIC));
  // The first batch waits in the writer's queue (it cannot commit); the
  // second finds the queue full.
  AddDrained(1);
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), sessions_));
  SessionMap second;
  AddDrained(2);
  second[2] = std::move(sessions_[2]);
  sessions_.erase(2);
  EXPECT_TRUE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), second)) << "shed";
  EXPECT_EQ(counters_.batches_submitted.load(), 1u);
  EXPECT_EQ(counters_.batches_shed.load(), 1u);
  EXPECT_EQ(counters_.events_shed.load(), 2 * kSpans) << "two events per paired span";
  EXPECT_TRUE(second[2]->HasPending()) << "the record goes into the next batch";

  lock.Release();
  ASSERT_TRUE(store_->Flush(10'000));
  pipeline.CutSoon();
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), second));
  ASSERT_TRUE(store_->Flush(10'000));
  const auto stored = Stored(2);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->dropped_shed, counters_.events_shed.load());
}

TEST_F(BatchPipelineTest,
       ApplyCommits_DatabaseRefusesABatch_LossCountedNamesKeptSegmentKeptUntilEndStored) {
  OpenStore(64);
  // A constraint of the database's own (real SQLite, not a mock): every
  // span page of session 7 is refused, and with it the whole batch that
  // carries it, the session's end and the names its ops interned.
  ASSERT_EQ(testing::QueryColumn(path_,
                                 "CREATE TRIGGER refuse_session_7 BEFORE INSERT ON span_pages "
                                 "WHEN NEW.session_id = 7 BEGIN "
                                 "SELECT RAISE(ABORT, 'refused by the test'); END"),
            std::vector<std::string>{});
  BatchPipeline pipeline(store_.get(), &dictionary_, &counters_, {});
  pipeline.StartClock(ClockNowNs(CLOCK_MONOTONIC));
  AddKilled(7);
  pipeline.CutSoon();
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), sessions_));  // batch 1
  ASSERT_TRUE(store_->Flush(10'000));
  ASSERT_EQ(store_->GetStatus().batches_dropped, 1u) << store_->GetStatus().last_error;

  // Session 8 runs the same ops, whose names batch 1 took from the
  // dictionary: its batch carries their ids only, and commits.
  AddDrained(8);
  pipeline.CutSoon();
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), sessions_));  // batch 2
  ASSERT_TRUE(store_->Flush(10'000));
  ASSERT_EQ(store_->CommittedSequence(), 2u);

  EXPECT_TRUE(pipeline.ApplyCommits(sessions_).empty())
      << "session 7's segment would go while the database does not hold its end";
  ASSERT_TRUE(sessions_[7]->HasPending()) << "its record goes into the next batch";
  const uint64_t events = sessions_[7]->record().events;
  EXPECT_EQ(counters_.events_refused.load(), events) << "every event of session 7 was in batch 1";
  pipeline.CutSoon();
  EXPECT_FALSE(pipeline.Cut(ClockNowNs(CLOCK_MONOTONIC), sessions_));  // batch 3
  ASSERT_TRUE(store_->Flush(10'000));
  EXPECT_EQ(store_->GetStatus().batches_dropped, 1u) << store_->GetStatus().last_error;
  EXPECT_EQ(pipeline.ApplyCommits(sessions_), std::vector<SessionId>{7}) << "its end is stored now";

  const auto stored = Stored(7);
  ASSERT_TRUE(stored.has_value()) << "the session is stored, with its loss";
  EXPECT_EQ(stored->state, SessionState::kCrashed);
  EXPECT_EQ(stored->events, events);
  EXPECT_EQ(stored->dropped_shed, events) << "a refused batch counts as lost, in the session";
  auto reader = testing::OpenReader(path_);
  const std::vector<Span> spans = testing::ReadSpans(*reader, 8);
  ASSERT_EQ(spans.size(), kSpans);
  for (const Span& span : spans) {
    EXPECT_EQ(testing::QueryColumn(path_, "SELECT count(*) FROM strings WHERE id = " +
                                              std::to_string(span.name) + " AND text != ''"),
              std::vector<std::string>{"1"})
        << "session 8's op " << span.op_id << ": its name " << span.name
        << " came with the refused batch and must be stored with a later one";
  }
}

}  // namespace
}  // namespace optrace::daemon
