// Step records (StepRecordWriter): written with the batch that commits the
// step (explicit steps numbered from 1 as they commit, ProfilerStep# ranges
// by their counter, explicit ones replacing profiler ones), bounded per
// session with the oldest folded and counted (a small bound injected), a
// rolled-back batch leaving nothing, and deleted with their session by
// retention. The real writer, retention and SQLite file.
#include "storage/step_record_writer.h"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "optrace/abi.h"
#include "storage/batch_writer.h"
#include "storage/page_trimmer.h"
#include "storage/retention.h"
#include "storage/schema.h"
#include "storage/span_reader.h"
#include "storage/sqlite_transaction.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::MakeSpan;
using testing::QueryColumn;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMs = 1'000'000;
constexpr StringId kStepId = 5;
constexpr StringId kProfilerId = 6;
constexpr StringId kOpId = 7;
constexpr SessionId kSession = 3;

const std::vector<std::pair<StringId, std::string>> kNames = {
    {kStepId, "optrace.step"}, {kProfilerId, "ProfilerStep#"}, {kOpId, "matmul"}};

// Steps named `name` with op ids from `first_op`, one every 100 ms from
// `first` (in units of 100 ms), lasting `durations_ms`, each with an op of
// another name inside it.
std::vector<Span> Steps(StringId name, uint64_t first_op, int64_t first,
                        const std::vector<uint64_t>& durations_ms) {
  std::vector<Span> spans;
  for (size_t i = 0; i < durations_ms.size(); ++i) {
    const int64_t start = (first + static_cast<int64_t>(i)) * 100 * kMs;
    spans.push_back(MakeSpan(first_op + 2 * i + 1, start + 1, kOpId, 500));
    spans.push_back(MakeSpan(first_op + 2 * i, start, name, durations_ms[i] * kMs));
  }
  return spans;
}

// A ProfilerStep# counter under range `op_id`, numbering it `number`.
Instant ProfilerCounter(uint64_t op_id, int64_t number) {
  Instant counter;
  counter.ts_ns = 1;
  counter.parent_op_id = op_id;
  counter.value = number;
  counter.name = kProfilerId;
  counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
  return counter;
}

}  // namespace

void PrintTo(const StepRecord& record, std::ostream* os) {
  *os << "{start " << record.start_ns << ", step " << record.number << ", " << record.duration_ns
      << " ns, source " << static_cast<int>(record.source) << "}";
}

namespace {

StepRecord Record(int64_t start_100ms, uint64_t number, uint64_t duration_ms,
                  StepSpanKind source = StepSpanKind::kExplicit) {
  return {start_100ms * 100 * kMs, number, duration_ms * kMs, source};
}

class StepRecordWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::OpenPreparedDb(path_);
    ASSERT_NE(db_, nullptr);
  }

  // The store's own writer, as the store runs it (the default bound).
  void OpenBatchWriter() {
    testing::StoreWriter made = testing::OpenStoreWriter(*db_, std::chrono::milliseconds(0));
    ASSERT_NE(made.writer, nullptr);
    uses_ = std::move(made.uses);
    batch_writer_ = std::move(made.writer);
  }

  // A step record writer of its own, with a bound of `max_per_session`.
  std::unique_ptr<StepRecordWriter> OpenStepWriter(uint64_t max_per_session) {
    Result<std::unique_ptr<StepRecordWriter>> writer =
        StepRecordWriter::Create(*db_, max_per_session);
    EXPECT_TRUE(writer.ok()) << writer.status().message();
    return writer.ok() ? std::move(writer).value() : nullptr;
  }

  StoreBatch Batch(std::vector<Span> spans, std::vector<Instant> instants = {},
                   SessionState state = SessionState::kRunning) {
    StoreBatch batch;
    batch.sequence = ++sequence_;
    if (sequence_ == 1) batch.new_strings = kNames;
    batch.sessions = {MakeSession(kSession, state, 10 * kSecond, 20 * kSecond)};
    batch.spans = {{kSession, std::move(spans)}};
    if (!instants.empty()) batch.instants = {{kSession, std::move(instants)}};
    return batch;
  }

  // Writes `batch` through `writer` alone, in a transaction it commits.
  void WriteCommitted(StepRecordWriter& writer, const StoreBatch& batch) {
    Result<SqliteTransaction> transaction =
        SqliteTransaction::Begin(*db_, SqliteTransaction::Kind::kImmediate);
    ASSERT_TRUE(transaction.ok()) << transaction.status().message();
    const Status written = writer.Write(batch);
    ASSERT_TRUE(written.ok()) << written.message();
    ASSERT_TRUE(transaction->Commit().ok());
    writer.Committed(batch);
  }

  SessionStepRecords Stored() {
    Result<SessionStepRecords> records = testing::OpenReader(path_)->StepRecords(kSession);
    EXPECT_TRUE(records.ok()) << records.status().message();
    return records.ok() ? std::move(records).value() : SessionStepRecords{};
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SqliteConnection> db_;
  std::unique_ptr<StringUses> uses_;
  std::unique_ptr<BatchWriter> batch_writer_;
  uint64_t sequence_ = 0;
};

TEST_F(StepRecordWriterTest, ExplicitStepsCommitted_RecordedWithTheirBatchNumberedFromOne) {
  ASSERT_NO_FATAL_FAILURE(OpenBatchWriter());
  std::vector<Span> spans = Steps(kStepId, 10, 0, {40, 50, 60});
  spans.push_back(MakeSpan(99, 350 * kMs, kStepId, 0, SpanStatus::kIncomplete));  // no step
  ASSERT_TRUE(batch_writer_->Write(Batch(std::move(spans))).ok());
  EXPECT_EQ(Stored().records,
            (std::vector<StepRecord>{Record(0, 1, 40), Record(1, 2, 50), Record(2, 3, 60)}));
  // The next batch's steps go on from the last number.
  ASSERT_TRUE(batch_writer_->Write(Batch(Steps(kStepId, 20, 3, {70, 80}))).ok());
  const SessionStepRecords stored = Stored();
  ASSERT_EQ(stored.records.size(), 5u);
  EXPECT_EQ(stored.records[3], Record(3, 4, 70));
  EXPECT_EQ(stored.records[4], Record(4, 5, 80));
  EXPECT_EQ(stored.folded, 0u);
}

TEST_F(StepRecordWriterTest, ProfilerSteps_NumberedByTheirCounter_ExplicitStepsReplaceThem) {
  ASSERT_NO_FATAL_FAILURE(OpenBatchWriter());
  // The counters come when the ranges begin, a batch before they end;
  // PyTorch numbers from 0.
  ASSERT_TRUE(
      batch_writer_->Write(Batch({}, {ProfilerCounter(10, 0), ProfilerCounter(11, 1)})).ok());
  ASSERT_TRUE(batch_writer_->Write(Batch(Steps(kProfilerId, 10, 0, {40, 50, 60}))).ok());
  EXPECT_EQ(Stored().records, (std::vector<StepRecord>{Record(0, 0, 40, StepSpanKind::kProfiler),
                                                       Record(1, 2, 50, StepSpanKind::kProfiler),
                                                       Record(2, 3, 60, StepSpanKind::kProfiler)}))
      << "range 10 is numbered 0 by its counter; ranges 12 and 14 have none (counter 1 is "
         "under op 11, a matmul): the next numbers";
  ASSERT_TRUE(batch_writer_->Write(Batch(Steps(kStepId, 30, 5, {70}))).ok());
  EXPECT_EQ(Stored().records, std::vector<StepRecord>{Record(5, 1, 70)})
      << "explicit steps win: the profiler records go, numbering starts again";
  ASSERT_TRUE(batch_writer_->Write(Batch(Steps(kProfilerId, 40, 6, {80}))).ok());
  EXPECT_EQ(Stored().records.size(), 1u) << "a profiler step after explicit ones is not recorded";
}

TEST_F(StepRecordWriterTest, OverTheBound_OldestDeletedAndCountedAsFolded) {
  std::unique_ptr<StepRecordWriter> writer = OpenStepWriter(3);
  ASSERT_NE(writer, nullptr);
  ASSERT_NO_FATAL_FAILURE(WriteCommitted(*writer, Batch(Steps(kStepId, 10, 0, {10, 20}))));
  ASSERT_NO_FATAL_FAILURE(WriteCommitted(*writer, Batch(Steps(kStepId, 20, 2, {30, 40, 50}))));
  SessionStepRecords stored = Stored();
  EXPECT_EQ(stored.records,
            (std::vector<StepRecord>{Record(2, 3, 30), Record(3, 4, 40), Record(4, 5, 50)}));
  EXPECT_EQ(stored.folded, 2u);
  // A restarted daemon's writer learns the names from the stored
  // dictionary (written here: this writer alone writes no strings), reads
  // the counts back and goes on.
  ASSERT_TRUE(db_->Exec("INSERT INTO strings(id, text) VALUES(5, 'optrace.step')").ok());
  writer = OpenStepWriter(3);
  ASSERT_NO_FATAL_FAILURE(WriteCommitted(*writer, Batch(Steps(kStepId, 30, 5, {60}))));
  stored = Stored();
  EXPECT_EQ(stored.records,
            (std::vector<StepRecord>{Record(3, 4, 40), Record(4, 5, 50), Record(5, 6, 60)}));
  EXPECT_EQ(stored.folded, 3u);
  EXPECT_EQ(QueryColumn(path_, "SELECT recorded FROM step_record_counts"),
            std::vector<std::string>{"3"});
}

TEST_F(StepRecordWriterTest, BatchRolledBack_NothingRecordedCountsReadAgain) {
  std::unique_ptr<StepRecordWriter> writer = OpenStepWriter(kMaxStepRecordsPerSession);
  ASSERT_NE(writer, nullptr);
  const StoreBatch batch = Batch(Steps(kStepId, 10, 0, {10, 20}));
  {
    Result<SqliteTransaction> transaction =
        SqliteTransaction::Begin(*db_, SqliteTransaction::Kind::kImmediate);
    ASSERT_TRUE(transaction.ok());
    ASSERT_TRUE(writer->Write(batch).ok());
  }  // rolled back, as a failed batch is
  writer->RolledBack();
  EXPECT_EQ(Stored().records.size(), 0u);
  ASSERT_NO_FATAL_FAILURE(WriteCommitted(*writer, batch));
  EXPECT_EQ(Stored().records, (std::vector<StepRecord>{Record(0, 1, 10), Record(1, 2, 20)}));
}

TEST_F(StepRecordWriterTest, Malicious_TwoRangesOneStartOneCounter_RecordedOnceBatchCommits) {
  ASSERT_NO_FATAL_FAILURE(OpenBatchWriter());
  std::vector<Span> spans = {MakeSpan(10, 0, kProfilerId, 5 * kMs),
                             MakeSpan(11, 0, kProfilerId, 6 * kMs)};
  ASSERT_TRUE(batch_writer_
                  ->Write(Batch(std::move(spans), {ProfilerCounter(10, 4), ProfilerCounter(11, 4)}))
                  .ok());
  EXPECT_EQ(Stored().records, std::vector<StepRecord>{Record(0, 4, 5, StepSpanKind::kProfiler)});
  EXPECT_EQ(QueryColumn(path_, "SELECT recorded FROM step_record_counts"),
            std::vector<std::string>{"1"});
}

TEST_F(StepRecordWriterTest, SessionDeletedByRetention_ItsRecordsGoWithIt) {
  ASSERT_NO_FATAL_FAILURE(OpenBatchWriter());
  ASSERT_TRUE(
      batch_writer_->Write(Batch(Steps(kStepId, 10, 0, {10, 20}), {}, SessionState::kExited)).ok());
  ASSERT_EQ(QueryColumn(path_, "SELECT count(*) FROM step_records"), std::vector<std::string>{"2"});
  Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db_);
  ASSERT_TRUE(trimmer.ok());
  Result<std::unique_ptr<Retention>> retention =
      Retention::Create(*db_, *trimmer.value(), *uses_, {.max_age_ns = 50 * kSecond});
  ASSERT_TRUE(retention.ok()) << retention.status().message();
  Result<RetentionPass> pass = retention.value()->Enforce(200 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 1u);
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM step_records"), std::vector<std::string>{"0"});
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM step_record_counts"),
            std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace optrace::daemon
