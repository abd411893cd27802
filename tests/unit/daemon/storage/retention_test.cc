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
      batch.listings = {{.session = session.id, .file = "model.py", .text = "x = 1\ny = 2"}};
      ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    }
    ASSERT_TRUE(store.value()->Flush(20'000));
  }

  // Opens the database as the store's writer does and runs one pass;
  // returns the sessions deleted.
  Result<uint64_t> Enforce(RetentionPolicy policy, int64_t now_ns) {
    Result<RetentionPass> pass = EnforcePass(policy, now_ns);
    if (!pass.ok()) return pass.status();
    return pass->sessions_deleted;
  }

  Result<RetentionPass> EnforcePass(RetentionPolicy policy, int64_t now_ns) {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(path_, SqliteOpenMode::kReadWriteCreate, 1000);
    if (!db.ok()) return db.status();
    Status schema = PrepareSchema(*db.value());
    if (!schema.ok()) return schema;
    Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db.value());
    if (!trimmer.ok()) return trimmer.status();
    Result<std::unique_ptr<StringUses>> strings = StringUses::Create(*db.value());
    if (!strings.ok()) return strings.status();
    Result<std::unique_ptr<Retention>> retention =
        Retention::Create(*db.value(), *trimmer.value(), *strings.value(), policy);
    if (!retention.ok()) return retention.status();
    return retention.value()->Enforce(now_ns);
  }

  std::vector<std::string> SessionIds() {
    return QueryColumn(path_, "SELECT id FROM sessions ORDER BY id");
  }

  // Rows left of `session` in every table with per-session rows:
  // "pages instants aggregates halves cursors listings".
  std::string RowsOf(SessionId session) {
    std::string out;
    for (const char* table :
         {"span_pages", "instants", "op_aggregates", "open_halves", "ring_cursors", "listings"}) {
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
  EXPECT_EQ(RowsOf(1), "0 0 0 0 0 0");
  EXPECT_EQ(RowsOf(2), "0 0 0 0 0 0");
  EXPECT_EQ(RowsOf(4), "1 1 50 1 1 1");
  EXPECT_LE(BytesOnDisk(), bound) << "vacuumed and checkpointed: the files really shrank";
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(RetentionTest, BySize_OnlyRunningLeft_RunningNeverDeleted) {
  WriteFourSessions();
  Result<uint64_t> deleted = Enforce({.max_bytes = 4096}, 1000 * kSecond);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(deleted.value(), 3u);
  EXPECT_EQ(SessionIds(), std::vector<std::string>{"3"});
  EXPECT_EQ(RowsOf(3), "1 1 50 1 1 1");
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

// Fair retention: sessions of two uids. `session` of `uid` gets `pages`
// pages of 1000 spans, one batch each, 1 s apart from `start_ns`.
class FairRetentionTest : public RetentionTest {
 protected:
  void WriteSession(SessionId session, uint32_t uid, SessionState state, int64_t start_ns,
                    size_t pages) {
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    SessionRecord record =
        MakeSession(session, state, start_ns, state == SessionState::kRunning ? 0 : start_ns + 1);
    record.uid = uid;
    for (size_t i = 0; i < pages; ++i) {
      StoreBatch batch;
      batch.sequence = i + 1;
      batch.sessions = {record};
      batch.spans = {
          {session, SpanRun(1 + i * 1000, start_ns + static_cast<int64_t>(i) * kSecond, 1000)}};
      ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    }
    ASSERT_TRUE(store.value()->Flush(20'000));
  }

  uint64_t PagesOf(SessionId session) {
    return std::stoull(QueryColumn(
        path_, "SELECT count(*) FROM span_pages WHERE session_id = " + std::to_string(session))[0]);
  }

  SessionTrim TrimOf(SessionId session) {
    Result<std::optional<SessionRecord>> record = OpenReader(path_)->GetSession(session);
    EXPECT_TRUE(record.ok() && record.value()) << "session " << session;
    return record.ok() && record.value() ? record.value()->trim : SessionTrim{};
  }
};

// The case: uid 1's ended session, then uid 2's running session
// grows past the cap. The running session's window shrinks; uid 1's session
// stays whole.
TEST_F(FairRetentionTest, Cap_OtherUidsRunningSessionOver_EndedSessionKeptRunningTrimmed) {
  ASSERT_NO_FATAL_FAILURE(WriteSession(1, 100, SessionState::kExited, 10 * kSecond, 4));
  ASSERT_NO_FATAL_FAILURE(WriteSession(2, 200, SessionState::kRunning, 100 * kSecond, 60));
  const uint64_t bound = UsedBytes() / 3;
  Result<RetentionPass> pass = EnforcePass({.max_bytes = bound}, 1000 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 0u);
  EXPECT_EQ(SessionIds(), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(PagesOf(1), 4u) << "the other uid's ended session is whole";
  EXPECT_LT(PagesOf(2), 60u);
  EXPECT_GT(pass->spans_trimmed, 0u);
  EXPECT_EQ(TrimOf(2).spans, pass->spans_trimmed);
  EXPECT_EQ(TrimOf(2).spans, (60 - PagesOf(2)) * 1000);
  EXPECT_GT(TrimOf(2).before_ns, 100 * kSecond);
  EXPECT_EQ(TrimOf(1), SessionTrim{});
  EXPECT_LE(UsedBytes(), bound);
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

// Within one uid, its own oldest data goes first: its ended session, and
// only then its running session's oldest pages.
TEST_F(FairRetentionTest, Cap_SameUid_OwnEndedSessionDeletedBeforeRunningTrimmed) {
  ASSERT_NO_FATAL_FAILURE(WriteSession(1, 100, SessionState::kExited, 10 * kSecond, 4));
  ASSERT_NO_FATAL_FAILURE(WriteSession(2, 100, SessionState::kRunning, 100 * kSecond, 20));
  Result<RetentionPass> pass = EnforcePass({.max_bytes = UsedBytes() * 9 / 10}, 1000 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 1u);
  EXPECT_EQ(SessionIds(), std::vector<std::string>{"2"});
  EXPECT_EQ(pass->spans_trimmed, 0u) << "deleting its ended session was enough";
  EXPECT_EQ(PagesOf(2), 20u);
}

// Only what is running is left, and the cap is below one page: every
// running session keeps its newest page, none is deleted.
TEST_F(FairRetentionTest, Cap_BelowOnePage_RunningSessionsKeepTheirNewestPage) {
  ASSERT_NO_FATAL_FAILURE(WriteSession(1, 100, SessionState::kRunning, 10 * kSecond, 5));
  ASSERT_NO_FATAL_FAILURE(WriteSession(2, 200, SessionState::kRunning, 100 * kSecond, 5));
  Result<RetentionPass> pass = EnforcePass({.max_bytes = 4096}, 1000 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 0u);
  EXPECT_EQ(PagesOf(1), 1u);
  EXPECT_EQ(PagesOf(2), 1u);
  EXPECT_EQ(pass->spans_trimmed, 8000u);
}

// uid 100 holds more than its quota: its own ended session goes, then its
// running session is trimmed; uid 200, within its quota, is not touched.
TEST_F(FairRetentionTest, UidQuota_UidOver_OwnOldestDataGoesOtherUidUntouched) {
  ASSERT_NO_FATAL_FAILURE(WriteSession(1, 100, SessionState::kExited, 10 * kSecond, 4));
  ASSERT_NO_FATAL_FAILURE(WriteSession(2, 100, SessionState::kRunning, 100 * kSecond, 20));
  ASSERT_NO_FATAL_FAILURE(WriteSession(3, 200, SessionState::kExited, 20 * kSecond, 10));
  const uint64_t page_bytes =
      std::stoull(QueryColumn(path_, "SELECT page_bytes FROM sessions WHERE id = 2")[0]) / 20;
  // Room for about ten of uid 100's pages.
  const uint64_t quota = page_bytes * 21 / 2;
  Result<RetentionPass> pass = EnforcePass({.uid_max_bytes = quota}, 1000 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 1u);
  EXPECT_EQ(SessionIds(), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(PagesOf(2), 10u);
  EXPECT_EQ(pass->spans_trimmed, 10'000u);
  EXPECT_LE(std::stoull(QueryColumn(path_, "SELECT page_bytes FROM sessions WHERE id = 2")[0]),
            quota);
  EXPECT_EQ(PagesOf(3), 10u) << "uid 200 holds as much, within its quota";
}

// The cap never trims a kept range of a running session (it passes over
// it to newer pages); deleting an ended session whole deletes its keeps.
TEST_F(FairRetentionTest, Cap_KeptRanges_RunningKeptPagesStayEndedSessionsKeepsGoWithIt) {
  ASSERT_NO_FATAL_FAILURE(WriteSession(1, 100, SessionState::kExited, 10 * kSecond, 4));
  ASSERT_NO_FATAL_FAILURE(WriteSession(2, 100, SessionState::kRunning, 100 * kSecond, 5));
  for (const char* keep :
       {"(1, 0, 20000000000, 'ended', 1, 1)", "(2, 100000000000, 101000000000, 'front', 1, 1)"}) {
    QueryColumn(path_, std::string("INSERT INTO keeps VALUES ") + keep);
  }
  Result<RetentionPass> pass = EnforcePass({.max_bytes = 4096}, 1000 * kSecond);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_EQ(pass->sessions_deleted, 1u);
  EXPECT_EQ(QueryColumn(path_, "SELECT session_id FROM keeps"), std::vector<std::string>{"2"});
  // Pages of 100 s and 101 s are kept, 104 s is the newest: 102 s and 103 s go.
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT first_start_ns / 1000000000 FROM span_pages WHERE session_id = 2 "
                        "ORDER BY first_start_ns"),
            (std::vector<std::string>{"100", "101", "104"}));
  EXPECT_EQ(pass->spans_trimmed, 2000u);
}

}  // namespace
}  // namespace optrace::daemon
