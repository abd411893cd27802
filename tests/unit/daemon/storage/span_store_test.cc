// SpanStore: batches committed whole and in order, read back exactly;
// the bounded queue; write errors retried until the disk recovers; a writer
// killed mid-stream; resuming after a restart; schema versions.
#include "storage/span_store.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <thread>

#include "model/duration_sketch.h"
#include "storage/schema.h"
#include "storage/span_reader.h"
#include "store_test_data.h"
#include "temp_folder.h"
#include "write_lock_holder.h"

namespace optrace::daemon {
namespace {

using testing::IntegrityCheck;
using testing::MakeHalf;
using testing::MakeSession;
using testing::MakeSpan;
using testing::OpenReader;
using testing::QueryColumn;
using testing::ReadSpans;
using testing::SpanRun;

constexpr uint8_t kLaunch = 1;
constexpr uint8_t kComplete = 2;

StoreBatch SpansBatch(uint64_t sequence, SessionId session, std::vector<Span> spans) {
  StoreBatch batch;
  batch.sequence = sequence;
  batch.spans.push_back({session, std::move(spans)});
  return batch;
}

// Waits up to `timeout` for `condition`.
template <typename Condition>
bool Eventually(Condition condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class SpanStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SpanStore> Open(StoreOptions options = {}) {
    options.db_path = path_;
    options.sketch_write_interval = {};  // aggregates' sketches complete after Flush
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().message();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // The statements that turn a database of schema `version` into one of
  // version - 1: what that version's migration added, taken away.
  static std::vector<const char*> StepDown(int64_t version) {
    switch (version) {
      case 14:
        return {"DROP TABLE step_record_counts", "DROP TABLE step_records"};
      case 13:
        return {"DROP TABLE session_strings"};
      case 12:
        return {"DROP TABLE listings", "ALTER TABLE sessions DROP COLUMN listings_capped",
                "ALTER TABLE sessions DROP COLUMN listings_dropped",
                "ALTER TABLE sessions DROP COLUMN listings_refused",
                "ALTER TABLE sessions DROP COLUMN listings_shipped"};
      case 11:
        return {"ALTER TABLE sessions DROP COLUMN pid_verified"};
      case 10:
        return {"ALTER TABLE sessions DROP COLUMN window_keep_last_bytes",
                "ALTER TABLE sessions DROP COLUMN window_keep_last_ns",
                "ALTER TABLE sessions DROP COLUMN window_overridden"};
      case 9:
        return {"ALTER TABLE op_aggregates DROP COLUMN self_ns"};
      case 8:
        return {"DROP TABLE keeps"};
      case 7:
        return {"ALTER TABLE op_aggregates DROP COLUMN groups_folded",
                "ALTER TABLE op_aggregates DROP COLUMN sketch"};
      case 6:
        return {"ALTER TABLE sessions DROP COLUMN full_ring_wait_timeouts",
                "ALTER TABLE sessions DROP COLUMN full_ring_wait_ns"};
      case 5:
        return {"DROP INDEX span_pages_by_last_start",
                "ALTER TABLE sessions DROP COLUMN page_bytes",
                "ALTER TABLE sessions DROP COLUMN trimmed_before_ns",
                "ALTER TABLE sessions DROP COLUMN instants_trimmed",
                "ALTER TABLE sessions DROP COLUMN spans_trimmed"};
      case 4:
        return {"ALTER TABLE sessions DROP COLUMN names_capped"};
      case 3:
        return {"ALTER TABLE open_halves DROP COLUMN has_device_ns"};
      case 2:
        return {"DROP TABLE forward_cursor",
                "CREATE TABLE span_pages_v1(id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, "
                "first_start_ns INTEGER NOT NULL, last_start_ns INTEGER NOT NULL, "
                "span_count INTEGER NOT NULL, data BLOB NOT NULL)",
                "INSERT INTO span_pages_v1 SELECT * FROM span_pages",
                "DROP TABLE span_pages",
                "ALTER TABLE span_pages_v1 RENAME TO span_pages",
                "CREATE INDEX span_pages_by_start ON span_pages(session_id, first_start_ns, "
                "last_start_ns)",
                "DELETE FROM sqlite_sequence"};
      default:
        ADD_FAILURE() << "no step down from schema version " << version;
        return {};
    }
  }

  // Turns the database (closed by the test first) back into schema
  // `version`, one version at a time: how a test makes an older database.
  // Call it in ASSERT_NO_FATAL_FAILURE.
  void DowngradeTo(int64_t version) {
    std::vector<std::string> sql;
    for (int64_t from = kSchemaVersion; from > version; --from) {
      for (const char* statement : StepDown(from)) sql.emplace_back(statement);
    }
    sql.push_back("UPDATE meta SET value = " + std::to_string(version) +
                  " WHERE key = 'schema_version'");
    for (const std::string& statement : sql) {
      ASSERT_EQ(QueryColumn(path_, statement), std::vector<std::string>{}) << statement;
    }
  }

  // Stores session `stored`, turns the database back into schema `version`,
  // then checks that opening it migrates to the current
  // version: the session reads back as `migrated`, a new session `fresh`
  // is stored whole, and the file is sound. Call it in
  // ASSERT_NO_FATAL_FAILURE.
  void ExpectSessionsMigrated(const SessionRecord& stored, int64_t version,
                              const SessionRecord& migrated, const SessionRecord& fresh) {
    {
      auto store = Open();
      StoreBatch batch;
      batch.sequence = 1;
      batch.sessions = {stored};
      ASSERT_TRUE(store->Submit(batch));
      ASSERT_TRUE(store->Flush(10'000));
    }
    ASSERT_NO_FATAL_FAILURE(DowngradeTo(version));
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              std::vector<std::string>{std::to_string(kSchemaVersion)});
    EXPECT_EQ(OpenReader(path_)->GetSession(stored.id).value(),
              std::optional<SessionRecord>(migrated));
    StoreBatch batch;
    batch.sequence = 2;
    batch.sessions = {fresh};
    ASSERT_TRUE(store->Submit(batch));
    ASSERT_TRUE(store->Flush(10'000));
    EXPECT_EQ(OpenReader(path_)->GetSession(fresh.id).value(), std::optional<SessionRecord>(fresh));
    EXPECT_EQ(IntegrityCheck(path_), "ok");
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
};

TEST_F(SpanStoreTest, Open_AbsentFolder_CreatesDatabaseWithVersionedSchema) {
  const std::string nested = dir_.path() + "/a/b/trace.db";
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = nested});
  ASSERT_TRUE(store.ok()) << store.status().message();
  store.value().reset();
  EXPECT_EQ(QueryColumn(nested, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
  EXPECT_EQ(QueryColumn(nested, "PRAGMA auto_vacuum"), std::vector<std::string>{"2"})
      << "2 = incremental";
  EXPECT_EQ(QueryColumn(nested, "PRAGMA journal_mode"), std::vector<std::string>{"wal"});
}

TEST_F(SpanStoreTest, Open_ExistingDatabase_KeepsDataAndVersion) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Submit(SpansBatch(1, 1, SpanRun(1, 1000, 10))));
    ASSERT_TRUE(store->Flush(10'000));
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Submit(SpansBatch(2, 1, SpanRun(11, 11'000, 10))));
  ASSERT_TRUE(store->Flush(10'000));
  auto reader = OpenReader(path_);
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 20u);
  EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
}

// A database of schema version 1 (before forwarding): span_pages without
// AUTOINCREMENT, no forward_cursor. Opening it migrates it, pages kept.
TEST_F(SpanStoreTest, Open_Version1Database_MigratedToForwardingSchemaPagesKept) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Submit(SpansBatch(1, 1, SpanRun(1, 1000, 10))));
    ASSERT_TRUE(store->Submit(SpansBatch(2, 1, SpanRun(11, 11'000, 10))));
    ASSERT_TRUE(store->Flush(10'000));
  }
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(1));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
  EXPECT_EQ(QueryColumn(path_, "SELECT group_concat(id) FROM span_pages"),
            std::vector<std::string>{"1,2"});
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM forward_cursor"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT count(*) FROM pragma_table_info('open_halves') "
                        "WHERE name = 'has_device_ns'"),
            std::vector<std::string>{"1"});
  EXPECT_NE(QueryColumn(path_, "SELECT sql FROM sqlite_schema WHERE name = 'span_pages'")[0].find(
                "AUTOINCREMENT"),
            std::string::npos);
  auto reader = OpenReader(path_);
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 20u);
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(SpanStoreTest, Open_NewerSchemaVersion_RefusedNamingBoth) {
  Open().reset();
  QueryColumn(path_, "UPDATE meta SET value = 99 WHERE key = 'schema_version'");
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(store.status().message().find("schema version 99 is newer than this build's " +
                                          std::to_string(kSchemaVersion)),
            std::string::npos)
      << store.status().message();
  EXPECT_FALSE(SpanReader::Open(path_).ok());
}

TEST_F(SpanStoreTest, Open_NotADatabase_ErrorNamesPath) {
  std::ofstream(path_) << std::string(8192, 'x');
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(path_), std::string::npos) << store.status().message();
}

TEST_F(SpanStoreTest, Open_ForeignSqliteDatabase_Refused) {
  QueryColumn(path_, "CREATE TABLE accounts(id INTEGER)");
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not an optrace database"), std::string::npos)
      << store.status().message();
}

TEST_F(SpanStoreTest, Open_BadOptions_InvalidArgument) {
  EXPECT_EQ(SpanStore::Open({}).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(SpanStore::Open({.db_path = path_, .max_queued_batches = 0}).status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(SpanStore::Open({.db_path = path_, .retention_max_age_ns = -1}).status().code(),
            Status::Code::kInvalidArgument);
}

TEST_F(SpanStoreTest, Submit_FullBatch_EverythingReadBackExactly) {
  auto store = Open();
  StoreBatch batch;
  batch.sequence = 7;
  batch.new_strings = {{1, "matmul"}, {2, "matmul_128x256x512_f32"}, {3, "model.py:42"}};
  batch.sessions = {MakeSession(1), MakeSession(2, SessionState::kExited, 5, 99)};
  std::mt19937_64 rng(1);
  const std::vector<Span> spans1 = SpanRun(100, 5'000, 300);
  std::vector<Span> spans2 = testing::RandomSpans(rng, 200);
  batch.spans = {{1, spans1}, {2, spans2}};
  Instant mark{.ts_ns = 42,
               .parent_op_id = 100,
               .value = 0,
               .name = 1,
               .tag = 2,
               .tid = 9,
               .kind = 3,
               .level = 5};
  Instant counter{.ts_ns = 43,
                  .parent_op_id = 0,
                  .value = -17,
                  .name = 3,
                  .tag = 0,
                  .tid = 9,
                  .kind = 4,
                  .level = 4};
  batch.instants = {{1, {mark, counter}}};
  batch.halves_opened = {{1, {MakeHalf(500, kLaunch), MakeHalf(501, kComplete)}}};
  batch.cursors = {{1, 0, 1234}, {1, 3, 99}, {2, 0, 5}};
  ASSERT_TRUE(store->Submit(batch));
  ASSERT_TRUE(store->Flush(10'000));
  EXPECT_EQ(store->CommittedSequence(), 7u);
  const StoreStatus status = store->GetStatus();
  EXPECT_EQ(status.batches_committed, 1u);
  EXPECT_EQ(status.spans_committed, 500u);
  EXPECT_EQ(status.queued_batches, 0u);
  EXPECT_EQ(status.queued_spans, 0u);
  EXPECT_EQ(status.write_errors, 0u);
  EXPECT_EQ(status.last_error, "");
  EXPECT_GT(status.db_bytes, 0u);

  auto reader = OpenReader(path_);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(ReadSpans(*reader, 1), spans1);
  // Spans are stored in start order (equal starts keep their order).
  std::stable_sort(spans2.begin(), spans2.end(),
                   [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; });
  EXPECT_EQ(ReadSpans(*reader, 2), spans2);
  std::vector<Instant> instants;
  ASSERT_TRUE(reader
                  ->ForEachInstant(1,
                                   [&](const Instant& i) {
                                     instants.push_back(i);
                                     return true;
                                   })
                  .ok());
  EXPECT_EQ(instants, (std::vector<Instant>{mark, counter}));
  EXPECT_EQ(reader->OpenHalves(1).value(),
            (std::vector<HalfOp>{MakeHalf(500, kLaunch), MakeHalf(501, kComplete)}));
  EXPECT_EQ(reader->RingCursors(1).value(), (std::vector<RingCursor>{{1, 0, 1234}, {1, 3, 99}}));
  EXPECT_EQ(reader->GetSession(2).value(), std::optional<SessionRecord>(batch.sessions[1]));
  EXPECT_EQ(reader->LoadStrings().value(), batch.new_strings);
  EXPECT_EQ(reader->String(2).value(), std::optional<std::string>("matmul_128x256x512_f32"));
  EXPECT_EQ(reader->String(4).value(), std::nullopt);
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM span_pages"), std::vector<std::string>{"2"})
      << "one page per session per batch";
}

TEST_F(SpanStoreTest, Submit_MorePagesWorthOfSpans_SplitIntoPagesReadBackInOrder) {
  auto store = Open();
  const std::vector<Span> spans = SpanRun(1, 1'000'000, 150'000);
  ASSERT_TRUE(store->Submit(SpansBatch(1, 1, spans)));
  ASSERT_TRUE(store->Flush(20'000));
  EXPECT_EQ(QueryColumn(path_, "SELECT span_count FROM span_pages ORDER BY id"),
            (std::vector<std::string>{"65536", "65536", "18928"}));
  auto reader = OpenReader(path_);
  EXPECT_EQ(ReadSpans(*reader, 1), spans);
}

TEST_F(SpanStoreTest, Submit_SessionUpsertedAgain_CountersReplaced) {
  auto store = Open();
  SessionRecord record = MakeSession(3);
  StoreBatch first;
  first.sequence = 1;
  first.sessions = {record};
  ASSERT_TRUE(store->Submit(first));
  record.events = 1'000'000;
  record.spans = 400'000;
  record.dropped_shed = 12;
  record.dropped_daemon_restart = 3;
  record.dropped_invalid = 2;
  record.open_ops = 5;
  record.state = SessionState::kCrashed;
  record.end_ns = 77'000;
  StoreBatch second;
  second.sequence = 2;
  second.sessions = {record};
  ASSERT_TRUE(store->Submit(second));
  ASSERT_TRUE(store->Flush(10'000));
  auto reader = OpenReader(path_);
  EXPECT_EQ(reader->ListSessions().value(), std::vector<SessionRecord>{record});
}

// A database of schema version 2, whose unpaired halves said "no device
// duration" with device_ns 0: migrated, each keeps what it said.
TEST_F(SpanStoreTest, Open_Version2Database_WaitingCompletesKeepTheirDeviceDurations) {
  HalfOp timed = MakeHalf(15, kComplete);
  timed.device_ns = 40;
  timed.has_device_ns = true;
  HalfOp untimed = MakeHalf(16, kComplete);
  untimed.device_ns = 0;
  untimed.has_device_ns = false;
  {
    auto store = Open();
    StoreBatch batch;
    batch.sequence = 1;
    batch.halves_opened = {{1, {timed, untimed}}};
    ASSERT_TRUE(store->Submit(batch));
    ASSERT_TRUE(store->Flush(10'000));
  }
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(2));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto reader = OpenReader(path_);
  EXPECT_EQ(reader->OpenHalves(1).value(), (std::vector<HalfOp>{timed, untimed}));
}

// A database of schema version 3, whose sessions did not count names
// capped: migrated, its sessions kept with 0, and new counts stored.
TEST_F(SpanStoreTest, Open_Version3Database_SessionsKeptWithNoNamesCapped) {
  const SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  SessionRecord migrated = before;
  migrated.names_capped = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectSessionsMigrated(before, 3, migrated, MakeSession(2)));
}

TEST_F(SpanStoreTest, Submit_HalvesOpenedThenClosed_OnlyStillOpenRemain) {
  auto store = Open();
  StoreBatch first;
  first.sequence = 1;
  first.halves_opened = {{1, {MakeHalf(1, kLaunch), MakeHalf(2, kLaunch), MakeHalf(3, kComplete)}}};
  ASSERT_TRUE(store->Submit(first));
  StoreBatch second;
  second.sequence = 2;
  // 4 is opened and closed within the batch: it must end up closed.
  second.halves_opened = {{1, {MakeHalf(4, kLaunch)}}};
  second.halves_closed = {{1, 1, kLaunch},
                          {1, 3, kComplete},
                          {1, 4, kLaunch},
                          {1, 2, kComplete} /* no such half: nothing happens */};
  ASSERT_TRUE(store->Submit(second));
  ASSERT_TRUE(store->Flush(10'000));
  auto reader = OpenReader(path_);
  EXPECT_EQ(reader->OpenHalves(1).value(), std::vector<HalfOp>{MakeHalf(2, kLaunch)});
}

TEST_F(SpanStoreTest, Submit_ManyBatches_CommittedInSubmissionOrder) {
  auto store = Open();
  for (uint64_t seq = 1; seq <= 50; ++seq) {
    StoreBatch batch =
        SpansBatch(seq, 1, SpanRun(seq * 100, static_cast<int64_t>(seq) * 100'000, 100));
    // Each batch moves the same cursor and replaces the same session
    // record: the last one written must be the last one submitted.
    batch.cursors = {{1, 0, seq}};
    SessionRecord record = MakeSession(1);
    record.events = seq;
    batch.sessions = {record};
    while (!store->Submit(batch)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(store->Flush(20'000));
  EXPECT_EQ(store->CommittedSequence(), 50u);
  auto reader = OpenReader(path_);
  EXPECT_EQ(reader->RingCursors(1).value(), (std::vector<RingCursor>{{1, 0, 50}}));
  EXPECT_EQ(reader->GetSession(1).value()->events, 50u);
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT group_concat(id) FROM (SELECT id FROM span_pages "
                        "ORDER BY first_start_ns)"),
            QueryColumn(path_,
                        "SELECT group_concat(id) FROM (SELECT id FROM span_pages "
                        "ORDER BY id)"))
      << "pages were inserted in start order, i.e. submission order";
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 5000u);
}

TEST_F(SpanStoreTest, Aggregates_MixedStatusesOverTwoBatches_DurationsOnlyFromOkSpans) {
  auto store = Open();
  constexpr uint64_t kHuge = std::numeric_limits<uint64_t>::max();
  ASSERT_TRUE(store->Submit(
      SpansBatch(1, 1,
                 {MakeSpan(1, 10, 1, 100), MakeSpan(2, 20, 1, 300),
                  MakeSpan(3, 30, 1, 0, SpanStatus::kIncomplete),
                  MakeSpan(4, 40, 1, 0, SpanStatus::kCompleteWithoutLaunch),
                  MakeSpan(5, 50, 2, 0, SpanStatus::kDuplicate), MakeSpan(6, 60, 3, kHuge)})));
  ASSERT_TRUE(store->Submit(SpansBatch(
      2, 1, {MakeSpan(7, 70, 1, 50), MakeSpan(8, 80, 1, 1000), MakeSpan(9, 90, 3, kHuge)})));
  ASSERT_TRUE(store->Flush(10'000));
  auto reader = OpenReader(path_);
  Result<std::vector<OpAggregateRow>> rows = reader->Aggregates(1);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 3u);
  const OpAggregateRow& op1 = rows.value()[0];
  EXPECT_EQ(op1.key, (OpAggregateKey{1, 1, 101, 2, 1}));
  EXPECT_EQ(op1.totals.count, 6u);
  EXPECT_EQ(op1.totals.ok_count, 4u);
  EXPECT_EQ(op1.totals.total_ns, 1450u);
  EXPECT_EQ(op1.totals.min_ns, 50u);
  EXPECT_EQ(op1.totals.max_ns, 1000u);
  const OpAggregateRow& op2 = rows.value()[1];
  EXPECT_EQ(op2.totals.count, 1u);
  EXPECT_EQ(op2.totals.ok_count, 0u);
  EXPECT_EQ(op2.totals.total_ns, 0u);
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT quote(min_ns) || quote(max_ns) FROM op_aggregates "
                        "WHERE name = 2"),
            std::vector<std::string>{"NULLNULL"})
      << "no ok span: no duration bounds";
  const OpAggregateRow& op3 = rows.value()[2];
  EXPECT_EQ(op3.totals.ok_count, 2u);
  EXPECT_EQ(op3.totals.total_ns, kMaxAggregateNs) << "saturates instead of overflowing";
  EXPECT_EQ(op3.totals.max_ns, kMaxAggregateNs);
  EXPECT_EQ(QueryColumn(path_, "SELECT typeof(total_ns) FROM op_aggregates WHERE name = 3"),
            std::vector<std::string>{"integer"});
}

// The sketch a stored row holds, failing the test when it does not parse.
DurationSketch StoredSketch(const OpAggregateRow& row) {
  Result<DurationSketch> sketch = DurationSketch::Parse(row.sketch);
  EXPECT_TRUE(sketch.ok()) << sketch.status().message();
  return sketch.ok() ? sketch.value() : DurationSketch();
}

TEST_F(SpanStoreTest, Aggregates_TwoBatches_SketchCoversEveryOkDuration) {
  auto store = Open();
  std::vector<Span> first, second;
  for (uint64_t i = 1; i <= 1000; ++i) {
    (i % 2 == 0 ? first : second).push_back(MakeSpan(i, static_cast<int64_t>(i) * 10, 1, i * 1000));
  }
  second.push_back(MakeSpan(2000, 20'000, 1, 0, SpanStatus::kIncomplete));
  ASSERT_TRUE(store->Submit(SpansBatch(1, 1, first)));
  ASSERT_TRUE(store->Submit(SpansBatch(2, 1, second)));
  ASSERT_TRUE(store->Flush(10'000));
  Result<std::vector<OpAggregateRow>> rows = OpenReader(path_)->Aggregates(1);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows.value()[0].totals.count, 1001u);
  const DurationSketch sketch = StoredSketch(rows.value()[0]);
  EXPECT_EQ(sketch.Count(), 1000u) << "ok durations only";
  EXPECT_NEAR(static_cast<double>(sketch.Quantile(0.5)), 500'000.0,
              500'000.0 * DurationSketch::kRelativeError);
  EXPECT_NEAR(static_cast<double>(sketch.Quantile(0.99)), 990'000.0,
              990'000.0 * DurationSketch::kRelativeError);
}

// One more group than the bound: the half with the least time is folded
// into `other`, and the session's counts and totals stay exact in sum.
TEST_F(SpanStoreTest, Aggregates_PastGroupBound_LeastTimeFoldedIntoOther) {
  auto store = Open();
  std::vector<Span> spans;
  uint64_t total_ns = 0;
  for (uint64_t i = 1; i <= kMaxAggregateGroups + 1; ++i) {
    Span span = MakeSpan(i, static_cast<int64_t>(i), 1, i * 10);  // tag i takes i * 10 ns
    span.tag = static_cast<StringId>(i);
    total_ns += span.duration_ns;
    spans.push_back(span);
  }
  ASSERT_TRUE(store->Submit(SpansBatch(1, 1, spans)));
  // A folded tag seen again starts a row of its own.
  Span again = MakeSpan(kMaxAggregateGroups + 2, 1'000'000, 1, 7);
  again.tag = 1;
  total_ns += 7;
  ASSERT_TRUE(store->Submit(SpansBatch(2, 1, {again})));
  ASSERT_TRUE(store->Flush(10'000));
  Result<std::vector<OpAggregateRow>> rows = OpenReader(path_)->Aggregates(1);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), kAggregateGroupsAfterFold + 2);
  const OpAggregateRow& other = rows->back();
  ASSERT_TRUE(IsOtherGroup(other.key));
  EXPECT_EQ(other.groups_folded, kMaxAggregateGroups + 1 - kAggregateGroupsAfterFold);
  EXPECT_EQ(StoredSketch(other).Count(), other.totals.ok_count);
  uint64_t count = 0, sum_ns = 0, smallest_kept_ns = UINT64_MAX;
  for (const OpAggregateRow& row : rows.value()) {
    count += row.totals.count;
    sum_ns += row.totals.total_ns;
    if (!IsOtherGroup(row.key) && row.key.tag != 1) {
      smallest_kept_ns = std::min(smallest_kept_ns, row.totals.total_ns);
    }
  }
  EXPECT_EQ(count, kMaxAggregateGroups + 2);
  EXPECT_EQ(sum_ns, total_ns);
  EXPECT_GT(smallest_kept_ns, other.totals.max_ns) << "the groups kept are the top ones by time";
  EXPECT_EQ(rows->front().key.tag, 1u);
  EXPECT_EQ(rows->front().totals.total_ns, 7u);
}

// A database of schema version 6, whose aggregates had no sketch: kept,
// read with none, and a sketch of the later spans only, which says so by
// its count.
TEST_F(SpanStoreTest, Open_Version6Database_AggregatesKeptWithoutSketch) {
  {
    auto store = Open();
    ASSERT_TRUE(store->Submit(SpansBatch(1, 1, {MakeSpan(1, 10, 1, 100)})));
    ASSERT_TRUE(store->Flush(10'000));
  }
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(6));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
  Result<std::vector<OpAggregateRow>> before = OpenReader(path_)->Aggregates(1);
  ASSERT_TRUE(before.ok()) << before.status().message();
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ(before.value()[0].totals.count, 1u);
  EXPECT_TRUE(before.value()[0].sketch.empty());
  ASSERT_TRUE(store->Submit(SpansBatch(2, 1, {MakeSpan(2, 20, 1, 300)})));
  ASSERT_TRUE(store->Flush(10'000));
  Result<std::vector<OpAggregateRow>> after = OpenReader(path_)->Aggregates(1);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after.value()[0].totals.ok_count, 2u);
  EXPECT_EQ(StoredSketch(after.value()[0]).Count(), 1u) << "below ok_count: incomplete";
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(SpanStoreTest, Submit_QueueFull_RefusedAndCountedThenDrains) {
  auto store = Open({.db_path = {}, .max_queued_batches = 3});
  WriteLockHolder lock(path_);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    EXPECT_TRUE(
        store->Submit(SpansBatch(seq, 1, SpanRun(seq * 10, static_cast<int64_t>(seq) * 1000, 10))));
  }
  EXPECT_FALSE(store->Submit(SpansBatch(4, 1, SpanRun(40, 4000, 10))));
  StoreStatus status = store->GetStatus();
  EXPECT_EQ(status.batches_refused, 1u);
  EXPECT_EQ(status.queued_batches, 3u);
  EXPECT_EQ(status.queued_spans, 30u);
  EXPECT_FALSE(store->Flush(50)) << "nothing can commit while the lock is held";
  lock.Release();
  ASSERT_TRUE(store->Flush(20'000));
  status = store->GetStatus();
  EXPECT_EQ(status.batches_committed, 3u);
  EXPECT_EQ(status.committed_sequence, 3u);
  EXPECT_EQ(status.last_error, "");
}

// Sets the file size limit of this process (EFBIG past it, as a full disk
// refuses writes) and puts it back when the scope ends.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::signal(SIGXFSZ, SIG_IGN);  // get EFBIG instead of being killed
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  }
  ~FileSizeLimit() { Lift(); }
  void Lift() {
    if (lifted_) return;
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, SIG_DFL);
    lifted_ = true;
  }

 private:
  rlimit saved_{};
  bool lifted_ = false;
};

off_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

TEST_F(SpanStoreTest, WriteError_DiskRefusesWrites_RetriedUntilSpaceReturns) {
  auto store = Open();
  ASSERT_TRUE(store->Submit(SpansBatch(1, 1, SpanRun(1, 1000, 100))));
  ASSERT_TRUE(store->Flush(10'000));
  const std::vector<Span> big = SpanRun(1000, 1'000'000, 200'000);  // a few MB of pages
  {
    FileSizeLimit limit(std::max(FileSize(path_), FileSize(path_ + "-wal")) + 4096);
    ASSERT_TRUE(store->Submit(SpansBatch(2, 1, big)));
    ASSERT_TRUE(
        Eventually([&] { return store->GetStatus().write_errors >= 2; }, std::chrono::seconds(20)));
    const StoreStatus failing = store->GetStatus();
    EXPECT_EQ(failing.committed_sequence, 1u);
    EXPECT_EQ(failing.queued_batches, 1u) << "the failed batch stays queued";
    EXPECT_EQ(failing.batches_dropped, 0u);
    EXPECT_NE(failing.last_error.find(path_), std::string::npos) << failing.last_error;
    EXPECT_FALSE(store->Flush(10));
    limit.Lift();
    ASSERT_TRUE(store->Flush(20'000)) << store->GetStatus().last_error;
  }
  const StoreStatus recovered = store->GetStatus();
  EXPECT_EQ(recovered.committed_sequence, 2u);
  EXPECT_EQ(recovered.last_error, "");
  store.reset();
  EXPECT_EQ(IntegrityCheck(path_), "ok");
  auto reader = OpenReader(path_);
  const std::vector<Span> stored = ReadSpans(*reader, 1);
  ASSERT_EQ(stored.size(), 100u + big.size());
  EXPECT_TRUE(std::equal(big.begin(), big.end(), stored.begin() + 100));
}

TEST_F(SpanStoreTest, Submit_ConstraintViolation_BatchDroppedCountedWritingGoesOn) {
  auto store = Open();
  StoreBatch first;
  first.sequence = 1;
  first.sessions = {MakeSession(1)};
  ASSERT_TRUE(store->Submit(first));
  StoreBatch clash = SpansBatch(2, 2, SpanRun(1, 1, 10));
  clash.sessions = {MakeSession(2)};
  clash.sessions[0].segment_name = first.sessions[0].segment_name;  // must be unique
  ASSERT_TRUE(store->Submit(clash));
  ASSERT_TRUE(store->Flush(10'000));
  StoreStatus status = store->GetStatus();
  EXPECT_EQ(status.batches_dropped, 1u);
  EXPECT_EQ(status.write_errors, 1u);
  EXPECT_NE(status.last_error.find("batch 2 dropped"), std::string::npos) << status.last_error;
  EXPECT_NE(status.last_error.find("UNIQUE"), std::string::npos) << status.last_error;
  ASSERT_TRUE(store->Submit(SpansBatch(3, 1, SpanRun(1, 1, 10))));
  ASSERT_TRUE(store->Flush(10'000));
  status = store->GetStatus();
  EXPECT_EQ(status.committed_sequence, 3u);
  EXPECT_EQ(status.last_error, "");
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM span_pages WHERE session_id = 2"),
            std::vector<std::string>{"0"})
      << "nothing of the dropped batch";
}

TEST_F(SpanStoreTest, Destructor_QueuedBatches_CommittedBeforeItReturns) {
  {
    auto store = Open({.db_path = {}, .max_queued_batches = 100});
    for (uint64_t seq = 1; seq <= 40; ++seq) {
      ASSERT_TRUE(store->Submit(
          SpansBatch(seq, 1, SpanRun(seq * 1000, static_cast<int64_t>(seq) * 1'000'000, 1000))));
    }
  }
  auto reader = OpenReader(path_);
  EXPECT_EQ(ReadSpans(*reader, 1).size(), 40'000u);
}

TEST_F(SpanStoreTest, LoadResumeState_AfterReopen_RunningSessionsWithCursorsAndHalves) {
  {
    auto store = Open();
    StoreBatch batch;
    batch.sequence = 1;
    batch.new_strings = {{1, "matmul"}, {2, "rms_norm"}, {9, "softmax"}};
    batch.sessions = {MakeSession(1), MakeSession(2, SessionState::kExited, 10, 20),
                      MakeSession(3)};
    batch.cursors = {{1, 0, 10}, {1, 1, 11}, {2, 0, 20}, {3, 0, 30}};
    batch.halves_opened = {{1, {MakeHalf(5, kLaunch)}}, {2, {MakeHalf(6, kLaunch)}}};
    ASSERT_TRUE(store->Submit(batch));
    ASSERT_TRUE(store->Flush(10'000));
  }
  auto store = Open();
  Result<ResumeState> resume = store->LoadResumeState();
  ASSERT_TRUE(resume.ok()) << resume.status().message();
  EXPECT_EQ(resume->max_string_id, 9u);
  EXPECT_EQ(resume->strings.size(), 3u);
  EXPECT_EQ(resume->max_session_id, 3u);
  EXPECT_EQ(resume->running_sessions, (std::vector<SessionRecord>{MakeSession(1), MakeSession(3)}));
  EXPECT_EQ(resume->cursors[1], (std::vector<RingCursor>{{1, 0, 10}, {1, 1, 11}}));
  EXPECT_EQ(resume->cursors[3], (std::vector<RingCursor>{{3, 0, 30}}));
  EXPECT_EQ(resume->cursors.count(2), 0u) << "session 2 has ended";
  EXPECT_EQ(resume->open_halves[1], std::vector<HalfOp>{MakeHalf(5, kLaunch)});
  EXPECT_TRUE(resume->open_halves[3].empty());
  EXPECT_EQ(resume->open_halves.count(2), 0u);
}

TEST_F(SpanStoreTest, LoadResumeState_EmptyDatabase_Zeros) {
  auto store = Open();
  Result<ResumeState> resume = store->LoadResumeState();
  ASSERT_TRUE(resume.ok()) << resume.status().message();
  EXPECT_EQ(resume->max_session_id, 0u);
  EXPECT_EQ(resume->max_string_id, 0u);
  EXPECT_TRUE(resume->running_sessions.empty());
}

// The child side of the crash test: writes batch after batch forever.
// Batch k holds n(k) spans of session 1 with op ids k * 1e6 + i, three
// instants with value k, cursor position k, the session record with
// events = k, and half k opened while half k - 1 is closed.
constexpr uint64_t kOpIdsPerBatch = 1'000'000;
size_t CrashBatchSpans(uint64_t k) { return 1000 + (k % 7) * 700; }

[[noreturn]] void WriteForever(const std::string& path, int ready_fd) {
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path});
  if (!store.ok()) ::_exit(2);
  bool told = false;
  for (uint64_t k = 1;; ++k) {
    StoreBatch batch;
    batch.sequence = k;
    batch.spans = {{1, SpanRun(k * kOpIdsPerBatch, static_cast<int64_t>(k) * 1'000'000'000,
                               CrashBatchSpans(k))}};
    batch.instants = {{1, std::vector<Instant>(3, Instant{.ts_ns = static_cast<int64_t>(k),
                                                          .value = static_cast<int64_t>(k)})}};
    batch.cursors = {{1, 0, k}};
    SessionRecord record = MakeSession(1);
    record.events = k;
    batch.sessions = {record};
    batch.halves_opened = {{1, {MakeHalf(k, kLaunch)}}};
    if (k > 1) batch.halves_closed = {{1, k - 1, kLaunch}};
    while (!store.value()->Submit(batch)) ::usleep(500);
    if (!told && store.value()->CommittedSequence() >= 5) {
      told = ::write(ready_fd, "r", 1) == 1;
    }
  }
}

TEST_F(SpanStoreTest, Crash_WriterKilledMidStream_EveryCommittedBatchWhole) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    WriteForever(path_, ready[1]);
  }
  ::close(ready[1]);
  pollfd wait_ready{ready[0], POLLIN, 0};
  ASSERT_EQ(::poll(&wait_ready, 1, 30'000), 1) << "the child never committed 5 batches";
  std::this_thread::sleep_for(std::chrono::milliseconds(150 + ::getpid() % 100));
  ::kill(child, SIGKILL);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited early with " << WEXITSTATUS(wstatus);
  ::close(ready[0]);

  EXPECT_EQ(IntegrityCheck(path_), "ok");
  auto reader = OpenReader(path_);
  ASSERT_NE(reader, nullptr);
  const uint64_t last = reader->GetSession(1).value()->events;
  ASSERT_GE(last, 5u);
  // Every batch 1..last is there, whole; nothing of a later one.
  std::map<uint64_t, size_t> spans_per_batch;
  for (const Span& span : ReadSpans(*reader, 1)) ++spans_per_batch[span.op_id / kOpIdsPerBatch];
  ASSERT_EQ(spans_per_batch.size(), last);
  size_t expected_spans = 0;
  for (uint64_t k = 1; k <= last; ++k) {
    EXPECT_EQ(spans_per_batch[k], CrashBatchSpans(k)) << "batch " << k;
    expected_spans += CrashBatchSpans(k);
  }
  std::map<int64_t, int> instants_per_batch;
  ASSERT_TRUE(reader
                  ->ForEachInstant(1,
                                   [&](const Instant& i) {
                                     ++instants_per_batch[i.value];
                                     return true;
                                   })
                  .ok());
  ASSERT_EQ(instants_per_batch.size(), last);
  for (const auto& [k, n] : instants_per_batch) EXPECT_EQ(n, 3) << "batch " << k;
  EXPECT_EQ(reader->RingCursors(1).value(), (std::vector<RingCursor>{{1, 0, last}}));
  EXPECT_EQ(reader->OpenHalves(1).value(), std::vector<HalfOp>{MakeHalf(last, kLaunch)});
  uint64_t aggregated = 0;
  const Result<std::vector<OpAggregateRow>> aggregates = reader->Aggregates(1);
  ASSERT_TRUE(aggregates.ok()) << aggregates.status().message();
  for (const OpAggregateRow& row : aggregates.value()) aggregated += row.totals.count;
  EXPECT_EQ(aggregated, expected_spans);

  // And the store opens the crashed file and goes on writing.
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Submit(SpansBatch(last + 1, 1, SpanRun(1, 1, 5))));
  EXPECT_TRUE(store->Flush(10'000));
}

// A database of schema version 4, before the rolling window: migrated, its
// sessions untrimmed, and the bytes of their pages counted once.
TEST_F(SpanStoreTest, Open_Version4Database_PageBytesCountedNothingTrimmed) {
  SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  {
    auto store = Open();
    StoreBatch batch = SpansBatch(1, 1, SpanRun(1, 1000, 100));
    batch.sessions = {before};
    ASSERT_TRUE(store->Submit(batch));
    ASSERT_TRUE(store->Flush(10'000));
  }
  const std::vector<std::string> bytes =
      QueryColumn(path_, "SELECT page_bytes FROM sessions WHERE id = 1");
  ASSERT_NE(bytes, std::vector<std::string>{"0"});
  EXPECT_EQ(bytes, QueryColumn(path_, "SELECT sum(length(data)) FROM span_pages"));
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(4));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryColumn(path_, "SELECT page_bytes FROM sessions WHERE id = 1"), bytes);
  EXPECT_EQ(OpenReader(path_)->GetSession(1).value(), std::optional<SessionRecord>(before));
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

// A database of schema version 5, before lossless mode's waits were kept:
// migrated, its sessions kept as having never waited, new waits stored.
TEST_F(SpanStoreTest, Open_Version5Database_SessionsKeptNeverWaited) {
  const SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  SessionRecord waited = MakeSession(2);
  waited.full_ring_wait_ns = 123'456'789;
  waited.full_ring_wait_timeouts = 2;
  ASSERT_NO_FATAL_FAILURE(ExpectSessionsMigrated(before, 5, before, waited));
}

// A database of schema version 7, before keeps: migrated with no keeps,
// its sessions and pages as they were, and a keep of a session stored
// before the migration is recorded.
TEST_F(SpanStoreTest, Open_Version7Database_NoKeepsThenKeepsRecorded) {
  {
    auto store = Open();
    StoreBatch batch = SpansBatch(1, 1, SpanRun(1, 1000, 10));
    batch.sessions = {MakeSession(1)};
    ASSERT_TRUE(store->Submit(batch));
    ASSERT_TRUE(store->Flush(10'000));
  }
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(7));
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM sqlite_master WHERE name = 'keeps'"),
            std::vector<std::string>{"0"});
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
  EXPECT_TRUE(OpenReader(path_)->Keeps(1).value().empty());
  Result<KeepRecord> kept =
      store->Keep({.session = 1, .first_ns = 0, .last_ns = 5000, .reason = "after"}, 10'000);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(OpenReader(path_)->Keeps(1).value(), std::vector<KeepRecord>{kept.value()});
  EXPECT_EQ(ReadSpans(*OpenReader(path_), 1).size(), 10u);
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(SpanStoreTest, Submit_NestedSpans_SelfTimeStoredAndSummedInAggregates) {
  Span parent = MakeSpan(1, 10, 1, 1000);
  parent.children_ns = 700;
  Span child = MakeSpan(2, 20, 2, 700);
  {
    auto store = Open();
    ASSERT_TRUE(store->Submit(SpansBatch(1, 1, {child, parent})));
    ASSERT_TRUE(store->Flush(10'000));
  }
  const std::vector<Span> stored = ReadSpans(*OpenReader(path_), 1);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0].children_ns + stored[1].children_ns, 700u);
  Result<std::vector<OpAggregateRow>> rows = OpenReader(path_)->Aggregates(1);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::map<StringId, uint64_t> self_by_name;
  for (const OpAggregateRow& row : rows.value()) self_by_name[row.key.name] = row.totals.self_ns;
  EXPECT_EQ(self_by_name, (std::map<StringId, uint64_t>{{1, 300}, {2, 700}}));
}

TEST_F(SpanStoreTest, Open_Version8Database_AggregatesSelfTimeIsTheirTotal) {
  Span parent = MakeSpan(1, 10, 1, 1000);
  parent.children_ns = 700;
  {
    auto store = Open();
    ASSERT_TRUE(store->Submit(SpansBatch(1, 1, {parent})));
    ASSERT_TRUE(store->Flush(10'000));
  }
  ASSERT_NO_FATAL_FAILURE(DowngradeTo(8));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(QueryColumn(path_, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(kSchemaVersion)});
  // Rows from before self time counted their whole total.
  EXPECT_EQ(QueryColumn(path_, "SELECT self_ns FROM op_aggregates WHERE session_id = 1"),
            std::vector<std::string>{"1000"});
  ASSERT_TRUE(store->Submit(SpansBatch(2, 1, {parent})));
  ASSERT_TRUE(store->Flush(10'000));
  EXPECT_EQ(QueryColumn(path_, "SELECT self_ns FROM op_aggregates WHERE session_id = 1"),
            std::vector<std::string>{"1300"});
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

// A database of schema version 9, before sessions had windows of their
// own: migrated, its sessions on the daemon's window; a window set after
// the migration is stored.
TEST_F(SpanStoreTest, Open_Version9Database_SessionsOnTheDaemonsWindow) {
  const SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  SessionRecord own = MakeSession(2);
  own.window = {.overridden = true, .limits = {.keep_last_ns = 30'000'000'000}};
  ASSERT_NO_FATAL_FAILURE(ExpectSessionsMigrated(before, 9, before, own));
}

// A database of schema version 10, before pids were verified: its sessions
// read as verified; a session of a producer in another PID namespace,
// stored after, keeps its mark.
TEST_F(SpanStoreTest, Open_Version10Database_SessionsReadAsPidVerified) {
  const SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  SessionRecord unverified = MakeSession(2);
  unverified.pid_verified = false;
  ASSERT_NO_FATAL_FAILURE(ExpectSessionsMigrated(before, 10, before, unverified));
}

// A database of schema version 11, before source listings: migrated, its
// sessions read with no listings; a session stored after keeps its
// listing counters and its listings.
TEST_F(SpanStoreTest, Open_Version11Database_SessionsWithoutListingsThenListingsStored) {
  const SessionRecord before = MakeSession(1, SessionState::kExited, 5, 99);
  SessionRecord shipping = MakeSession(2);
  shipping.listings = {.shipped = 3, .refused = 1, .dropped = 2, .capped = 4};
  ASSERT_NO_FATAL_FAILURE(ExpectSessionsMigrated(before, 11, before, shipping));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  StoreBatch batch;
  batch.sequence = 3;
  batch.listings = {{.session = 2,
                     .file = "model.py",
                     .first_line = 7,
                     .registered = false,
                     .text = "x = 1\ny = 2\n"}};
  ASSERT_TRUE(store->Submit(batch));
  ASSERT_TRUE(store->Flush(10'000));
  Result<std::vector<StoredListing>> listings = OpenReader(path_)->Listings(2, "model.py");
  ASSERT_TRUE(listings.ok()) << listings.status().message();
  ASSERT_EQ(listings->size(), 1u);
  EXPECT_EQ(listings->front().first_line, 7u);
  EXPECT_EQ(listings->front().line_count, 2u);
  EXPECT_EQ(listings->front().text, "x = 1\ny = 2\n");
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

}  // namespace
}  // namespace optrace::daemon
