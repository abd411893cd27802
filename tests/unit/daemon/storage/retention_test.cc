// Retention: whole ended sessions go, oldest first, by size or age;
// running sessions stay; the files shrink; ids are never reused.
#include "storage/retention.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "storage/schema.h"
#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::IntegrityCheck;
using testing::MakeHalf;
using testing::MakeSession;
using testing::OpenReader;
using testing::QueryColumn;
using testing::SpanRun;

constexpr int64_t kSecond = 1'000'000'000;
constexpr size_t kSpansPerSession = 60'000;

class RetentionTest : public ::testing::Test {
 protected:
  // Sessions 1 (exited, ended at 100 s), 2 (crashed, 200 s), 3 (running)
  // and 4 (exited, 300 s), each with the same number of spans and one row
  // in every other table.
  void WriteFourSessions() {
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    const SessionRecord sessions[] = {
        MakeSession(1, SessionState::kExited, 10 * kSecond, 100 * kSecond),
        MakeSession(2, SessionState::kCrashed, 20 * kSecond, 200 * kSecond),
        MakeSession(3, SessionState::kRunning, 30 * kSecond),
        MakeSession(4, SessionState::kExited, 40 * kSecond, 300 * kSecond)};
    for (const SessionRecord& session : sessions) {
      StoreBatch batch;
      batch.sequence = session.id;
      batch.sessions = {session};
      batch.spans = {{session.id, SpanRun(1, session.start_ns, kSpansPerSession)}};
      batch.instants = {{session.id, {Instant{.ts_ns = session.start_ns, .kind = 3}}}};
      batch.halves_opened = {{session.id, {MakeHalf(1, 1)}}};
      batch.cursors = {{session.id, 0, 1}};
      ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    }
    ASSERT_TRUE(store.value()->Flush(20'000));
  }

  // Opens the database as the store's writer does and runs one pass.
  Result<uint64_t> Enforce(RetentionPolicy policy, int64_t now_ns) {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(path_, SqliteOpenMode::kReadWriteCreate, 1000);
    if (!db.ok()) return db.status();
    Status schema = PrepareSchema(*db.value());
    if (!schema.ok()) return schema;
    Result<std::unique_ptr<Retention>> retention = Retention::Create(*db.value(), policy);
    if (!retention.ok()) return retention.status();
    return retention.value()->Enforce(now_ns);
  }

  std::vector<std::string> SessionIds() {
    return QueryColumn(path_, "SELECT id FROM sessions ORDER BY id");
  }

  // Rows left of `session` in every table with per-session rows:
  // "pages instants aggregates halves cursors".
  std::string RowsOf(SessionId session) {
    std::string out;
    for (const char* table :
         {"span_pages", "instants", "op_aggregates", "open_halves", "ring_cursors"}) {
      out += (out.empty() ? "" : " ") +
             QueryColumn(path_, std::string("SELECT count(*) FROM ") + table +
                                    " WHERE session_id = " + std::to_string(session))[0];
    }
    return out;
  }

  uint64_t BytesOnDisk() {
    struct stat wal {};
    const uint64_t wal_bytes =
        ::stat((path_ + "-wal").c_str(), &wal) == 0 ? static_cast<uint64_t>(wal.st_size) : 0;
    return std::stoull(QueryColumn(path_,
                                   "SELECT page_count * page_size FROM "
                                   "pragma_page_count(), pragma_page_size()")[0]) +
           wal_bytes;
  }

  uint64_t UsedBytes() {
    return std::stoull(
        QueryColumn(path_,
                    "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), "
                    "pragma_freelist_count(), pragma_page_size()")[0]);
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
};

TEST_F(RetentionTest, BySize_AboveBound_OldestEndedSessionsDeletedWholeUntilBelow) {
  WriteFourSessions();
  const uint64_t used = UsedBytes();
  // Room for about two and a half sessions: the two oldest ended ones go.
  const uint64_t bound = used * 5 / 8;
  Result<uint64_t> deleted = Enforce({.max_bytes = bound}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 2u);
  EXPECT_EQ(SessionIds(), (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(RowsOf(1), "0 0 0 0 0");
  EXPECT_EQ(RowsOf(2), "0 0 0 0 0");
  EXPECT_EQ(RowsOf(4), "1 1 50 1 1");
  EXPECT_LE(BytesOnDisk(), bound) << "vacuumed and checkpointed: the files really shrank";
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(RetentionTest, BySize_OnlyRunningLeft_RunningNeverDeleted) {
  WriteFourSessions();
  Result<uint64_t> deleted = Enforce({.max_bytes = 4096}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 3u);
  EXPECT_EQ(SessionIds(), std::vector<std::string>{"3"});
  EXPECT_EQ(RowsOf(3), "1 1 50 1 1");
}

TEST_F(RetentionTest, BySize_BelowBound_NothingDeleted) {
  WriteFourSessions();
  Result<uint64_t> deleted = Enforce({.max_bytes = 1ULL << 40}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 0u);
  EXPECT_EQ(SessionIds().size(), 4u);
}

TEST_F(RetentionTest, ByAge_EndedBeforeCutoff_DeletedRunningAndRecentKept) {
  WriteFourSessions();
  // Cutoff 250 s: sessions 1 (100 s) and 2 (200 s) ended before it;
  // running session 3 has end_ns 0 and must stay all the same.
  Result<uint64_t> deleted = Enforce({.max_age_ns = 750 * kSecond}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 2u);
  EXPECT_EQ(SessionIds(), (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(RetentionTest, Deleted_NewestSessionId_NeverReusedAfterRestart) {
  WriteFourSessions();
  ASSERT_TRUE(Enforce({.max_age_ns = 1}, 1000 * kSecond).ok());
  EXPECT_EQ(SessionIds(), std::vector<std::string>{"3"});
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<ResumeState> resume = store.value()->LoadResumeState();
  ASSERT_TRUE(resume.ok()) << resume.status().message();
  EXPECT_EQ(resume->max_session_id, 4u) << "session 4 is gone, its id is still taken";
}

TEST_F(RetentionTest, Store_AgeBoundAndACommit_OldSessionsDeletedAndCounted) {
  WriteFourSessions();
  Result<std::unique_ptr<SpanStore>> store =
      SpanStore::Open({.db_path = path_, .retention_max_age_ns = 3600 * kSecond});
  ASSERT_TRUE(store.ok()) << store.status().message();
  StoreBatch batch;
  batch.sequence = 5;
  batch.sessions = {MakeSession(5)};
  ASSERT_TRUE(store.value()->Submit(batch));
  // Sessions that ended in 1970 are far older than an hour.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (store.value()->GetStatus().sessions_deleted_by_retention < 3 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const StoreStatus status = store.value()->GetStatus();
  EXPECT_EQ(status.sessions_deleted_by_retention, 3u);
  EXPECT_EQ(status.write_errors, 0u) << status.last_error;
  EXPECT_EQ(SessionIds(), (std::vector<std::string>{"3", "5"}));
}

// The forwarder's cursor (schema version 2) says pages up to session 1's
// are in ClickHouse: deleting sessions 1 and 2 loses session 2's spans to
// it, and only those.
TEST_F(RetentionTest, ForwardCursor_UnsentPagesDeleted_CountedLostToRetention) {
  WriteFourSessions();
  const std::string session1_page =
      QueryColumn(path_, "SELECT id FROM span_pages WHERE session_id = 1")[0];
  QueryColumn(path_,
              "INSERT INTO forward_cursor(id, store_id, page_id, spans_sent, batches_sent, "
              "spans_lost_to_retention) VALUES(1, 7, " +
                  session1_page + ", 0, 0, 0)");
  Result<uint64_t> deleted = Enforce({.max_age_ns = 750 * kSecond}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 2u);
  EXPECT_EQ(QueryColumn(path_, "SELECT spans_lost_to_retention FROM forward_cursor"),
            std::vector<std::string>{std::to_string(kSpansPerSession)});
}

TEST_F(RetentionTest, NoForwardCursor_SessionsDeleted_NothingCountedNoRowMade) {
  WriteFourSessions();
  ASSERT_TRUE(Enforce({.max_age_ns = 750 * kSecond}, 1000 * kSecond).ok());
  EXPECT_EQ(QueryColumn(path_, "SELECT count(*) FROM forward_cursor"),
            std::vector<std::string>{"0"});
}

// The forwarder's cursor is "every page up to id N": a page id must never
// be given again, even after the pages with the highest ids were deleted.
TEST_F(RetentionTest, Deleted_NewestPage_PageIdNeverReused) {
  WriteFourSessions();
  const std::string newest = QueryColumn(path_, "SELECT max(id) FROM span_pages")[0];
  ASSERT_TRUE(Enforce({.max_age_ns = 1}, 1000 * kSecond).ok());
  ASSERT_EQ(SessionIds(), std::vector<std::string>{"3"});
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_TRUE(store.ok()) << store.status().message();
  StoreBatch batch;
  batch.sequence = 5;
  batch.spans = {{3, SpanRun(1'000'000, 50 * kSecond, 10)}};
  ASSERT_TRUE(store.value()->Submit(std::move(batch)));
  ASSERT_TRUE(store.value()->Flush(20'000));
  EXPECT_GT(std::stoull(QueryColumn(path_, "SELECT max(id) FROM span_pages")[0]),
            std::stoull(newest));
}

}  // namespace
}  // namespace optrace::daemon
