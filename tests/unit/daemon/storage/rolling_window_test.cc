// The rolling window: a session's oldest pages go by duration and by bytes,
// counted on the session, with the instants of their time; pages the
// forwarder had not sent are counted as its losses; the work per pass is
// bounded; sessions that received no spans are left alone; a session's
// own window replaces the daemon's.
#include "storage/rolling_window.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "storage/schema.h"
#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::IntegrityCheck;
using testing::MakeSession;
using testing::OpenReader;
using testing::QueryColumn;
using testing::SpanRun;

constexpr int64_t kSecond = 1'000'000'000;
constexpr size_t kPages = 10;
constexpr size_t kSpansPerPage = 100;
// SpanRun starts spans 1 us apart: a page's last start is this after its first.
constexpr int64_t kPageSpreadNs = (kSpansPerPage - 1) * 1000;

class RollingWindowTest : public ::testing::Test {
 protected:
  // Session 1, running: one batch (one page) every 10 s from 0 s, and an
  // instant at 5 s, 45 s and 85 s. Returns the batches, to Note.
  std::vector<StoreBatch> WriteSession() {
    std::vector<StoreBatch> batches;
    for (size_t i = 0; i < kPages; ++i) {
      StoreBatch batch;
      batch.sequence = i + 1;
      if (i == 0) batch.sessions = {MakeSession(1)};
      const int64_t start = static_cast<int64_t>(i) * 10 * kSecond;
      batch.spans = {{1, SpanRun(1 + i * kSpansPerPage, start, kSpansPerPage)}};
      if (i % 4 == 0) batch.instants = {{1, {Instant{.ts_ns = start + 5 * kSecond, .kind = 3}}}};
      batches.push_back(batch);
    }
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
    EXPECT_TRUE(store.ok()) << store.status().message();
    for (const StoreBatch& batch : batches) EXPECT_TRUE(store.value()->Submit(batch));
    EXPECT_TRUE(store.value()->Flush(20'000));
    return batches;
  }

  // Opens the database as the store's writer does, with the daemon's window
  // `defaults` and the own windows stored, and calls `body` with the window.
  void WithWindow(WindowLimits defaults, const std::function<void(RollingWindow&)>& body) {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(path_, SqliteOpenMode::kReadWriteCreate, 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    ASSERT_TRUE(PrepareSchema(*db.value()).ok());
    Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db.value());
    ASSERT_TRUE(trimmer.ok()) << trimmer.status().message();
    RollingWindow window(*db.value(), *trimmer.value(), defaults);
    ASSERT_TRUE(window.LoadOwnWindows().ok());
    body(window);
  }

  // Notes `batches` and runs `passes` passes of at most `max_pages` pages
  // each; returns what they trimmed.
  static TrimTotals NoteAndEnforce(RollingWindow& window, const std::vector<StoreBatch>& batches,
                                   size_t max_pages = 256, int passes = 1) {
    for (const StoreBatch& batch : batches) window.Note(batch);
    TrimTotals totals;
    for (int i = 0; i < passes; ++i) {
      Result<TrimTotals> pass = window.Enforce(max_pages);
      EXPECT_TRUE(pass.ok()) << pass.status().message();
      if (pass.ok()) totals += pass.value();
    }
    return totals;
  }

  // NoteAndEnforce with the daemon's window `limits` and no own windows.
  TrimTotals Enforce(WindowLimits limits, const std::vector<StoreBatch>& batches,
                     size_t max_pages = 256, int passes = 1) {
    TrimTotals totals;
    WithWindow(limits, [&](RollingWindow& window) {
      totals = NoteAndEnforce(window, batches, max_pages, passes);
    });
    return totals;
  }

  // Waits up to 20 s for `store`'s window to have trimmed `spans`: its pass
  // follows each commit, and the last one may still run after Flush.
  static void WaitForTrimmedByWindow(SpanStore& store, uint64_t spans) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (store.GetStatus().spans_trimmed_by_window < spans &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  SessionWindow WindowOf(SessionId session) {
    auto reader = OpenReader(path_);
    Result<std::optional<SessionRecord>> record = reader->GetSession(session);
    EXPECT_TRUE(record.ok() && record.value()) << "session " << session;
    return record.ok() && record.value() ? record.value()->window : SessionWindow{};
  }

  // The first start of every page of session 1, in seconds, oldest first.
  std::vector<std::string> PageStarts() {
    return QueryColumn(path_,
                       "SELECT first_start_ns / 1000000000 FROM span_pages WHERE session_id = 1 "
                       "ORDER BY first_start_ns");
  }

  SessionTrim TrimOf(SessionId session) {
    auto reader = OpenReader(path_);
    Result<std::optional<SessionRecord>> record = reader->GetSession(session);
    EXPECT_TRUE(record.ok() && record.value()) << "session " << session;
    return record.ok() && record.value() ? record.value()->trim : SessionTrim{};
  }

  uint64_t PageBytes() {
    return std::stoull(QueryColumn(path_, "SELECT page_bytes FROM sessions WHERE id = 1")[0]);
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
};

TEST_F(RollingWindowTest, ByDuration_PagesOlderThanKeepLast_TrimmedAndCounted) {
  const std::vector<StoreBatch> batches = WriteSession();
  // The newest span started at 90 s + spread: pages whose newest span
  // started more than 35 s before it (those of 0 s to 50 s) go.
  const TrimTotals totals = Enforce({.keep_last_ns = 35 * kSecond}, batches);
  EXPECT_EQ(totals.pages, 6u);
  EXPECT_EQ(totals.spans, 6 * kSpansPerPage);
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  const SessionTrim trim = TrimOf(1);
  EXPECT_EQ(trim.spans, 6 * kSpansPerPage);
  EXPECT_EQ(trim.before_ns, 50 * kSecond + kPageSpreadNs);
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(RollingWindowTest, ByDuration_InstantsOfTrimmedTime_TrimmedWithThem) {
  const std::vector<StoreBatch> batches = WriteSession();
  Enforce({.keep_last_ns = 35 * kSecond}, batches);
  // Instants at 5 s and 45 s are before 50 s + spread; 85 s stays.
  EXPECT_EQ(QueryColumn(path_, "SELECT ts_ns / 1000000000 FROM instants WHERE session_id = 1"),
            std::vector<std::string>{"85"});
  EXPECT_EQ(TrimOf(1).instants, 2u);
}

TEST_F(RollingWindowTest, ByBytes_AboveKeepLastBytes_OldestPagesTrimmedUntilWithin) {
  const std::vector<StoreBatch> batches = WriteSession();
  const uint64_t bytes = PageBytes();
  ASSERT_EQ(bytes, std::stoull(QueryColumn(path_, "SELECT sum(length(data)) FROM span_pages")[0]));
  // Room for three and a half pages of about the same size: three stay.
  const TrimTotals totals = Enforce({.keep_last_bytes = bytes * 35 / 100}, batches);
  EXPECT_EQ(totals.pages, 7u);
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"70", "80", "90"}));
  EXPECT_EQ(PageBytes(), bytes - totals.bytes) << "the session's bytes follow its pages";
  EXPECT_LE(PageBytes(), bytes * 35 / 100);
  EXPECT_EQ(TrimOf(1).spans, 7 * kSpansPerPage);
}

TEST_F(RollingWindowTest, ByBytes_BoundBelowOnePage_NewestPageStays) {
  const std::vector<StoreBatch> batches = WriteSession();
  Enforce({.keep_last_bytes = 1}, batches);
  EXPECT_EQ(PageStarts(), std::vector<std::string>{"90"});
}

TEST_F(RollingWindowTest, Budget_MorePagesDueThanAPass_RestTrimmedByLaterPasses) {
  const std::vector<StoreBatch> batches = WriteSession();
  EXPECT_EQ(Enforce({.keep_last_ns = 35 * kSecond}, batches, 2).pages, 2u);
  EXPECT_EQ(PageStarts().size(), kPages - 2);
  // The session stays noted while the budget did not reach all its pages.
  EXPECT_EQ(Enforce({.keep_last_ns = 35 * kSecond}, batches, 2, 3).pages, 4u);
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  EXPECT_EQ(TrimOf(1).spans, 6 * kSpansPerPage);
}

TEST_F(RollingWindowTest, NoSpansNoted_SessionStoredBefore_LeftWhole) {
  WriteSession();
  EXPECT_EQ(Enforce({.keep_last_ns = kSecond}, {}).pages, 0u);
  EXPECT_EQ(PageStarts().size(), kPages);
  EXPECT_EQ(TrimOf(1), SessionTrim{});
}

TEST_F(RollingWindowTest, Disabled_NothingTrimmed) {
  const std::vector<StoreBatch> batches = WriteSession();
  EXPECT_EQ(Enforce({}, batches).pages, 0u);
  EXPECT_EQ(PageStarts().size(), kPages);
}

// A session's own window replaces the daemon's: narrower when the daemon
// keeps everything, stored in its row, and in force after a restart.
TEST_F(RollingWindowTest, OwnWindow_DaemonKeepsAll_SessionTrimmedToItsOwnAcrossRestart) {
  const std::vector<StoreBatch> batches = WriteSession();
  const WindowLimits own{.keep_last_ns = 35 * kSecond};
  WithWindow({}, [&](RollingWindow& window) {
    Result<WindowLimits> set = window.SetOwn(1, own);
    ASSERT_TRUE(set.ok()) << set.status().message();
    EXPECT_EQ(set.value(), own);
    EXPECT_EQ(window.LimitsOf(1), own);
    EXPECT_EQ(window.LimitsOf(2), WindowLimits{}) << "other sessions keep the daemon's";
    EXPECT_EQ(NoteAndEnforce(window, {}).pages, 6u) << "setting it notes the session";
  });
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  EXPECT_EQ(WindowOf(1), (SessionWindow{.overridden = true, .limits = own}));
  WithWindow({}, [&](RollingWindow& window) { EXPECT_EQ(window.LimitsOf(1), own); });
}

// keep_last 0 of a session's own keeps all it stores under a daemon window;
// back to the daemon's (nullopt), the daemon's window trims it again.
TEST_F(RollingWindowTest, OwnWindow_KeepAllThenDefault_DaemonWindowOnlyAfterReset) {
  const std::vector<StoreBatch> batches = WriteSession();
  const WindowLimits daemon{.keep_last_ns = 35 * kSecond};
  WithWindow(daemon, [&](RollingWindow& window) {
    ASSERT_TRUE(window.SetOwn(1, WindowLimits{}).ok());
    EXPECT_EQ(NoteAndEnforce(window, batches).pages, 0u);
    EXPECT_EQ(PageStarts().size(), kPages);
    Result<WindowLimits> reset = window.SetOwn(1, std::nullopt);
    ASSERT_TRUE(reset.ok()) << reset.status().message();
    EXPECT_EQ(reset.value(), daemon);
    EXPECT_EQ(NoteAndEnforce(window, {}).pages, 6u);
  });
  EXPECT_EQ(WindowOf(1), SessionWindow{});
}

TEST_F(RollingWindowTest, SetOwn_NoSuchOrEndedSession_RefusedNamingIt) {
  WriteSession();
  {
    auto store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok());
    StoreBatch ended;
    ended.sequence = 1;
    ended.sessions = {MakeSession(2, SessionState::kExited)};
    ASSERT_TRUE(store.value()->Submit(ended));
    ASSERT_TRUE(store.value()->Flush(10'000));
  }
  WithWindow({}, [&](RollingWindow& window) {
    Result<WindowLimits> missing = window.SetOwn(9, WindowLimits{.keep_last_ns = kSecond});
    EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
    EXPECT_EQ(missing.status().message(), "no session 9");
    Result<WindowLimits> ended = window.SetOwn(2, WindowLimits{.keep_last_ns = kSecond});
    EXPECT_EQ(ended.status().code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ(ended.status().message(), "session 2 has exited: its window no longer moves");
  });
  EXPECT_EQ(WindowOf(2), SessionWindow{});
}

// Once a session with its own window ends, it is brought within it one
// last time, then the window forgets it (its row keeps the setting).
TEST_F(RollingWindowTest, OwnWindow_SessionEnds_BroughtWithinThenForgotten) {
  WriteSession();
  const WindowLimits own{.keep_last_ns = 35 * kSecond};
  WithWindow({}, [&](RollingWindow& window) {
    ASSERT_TRUE(window.SetOwn(1, own).ok());
    StoreBatch ended;
    ended.sessions = {MakeSession(1, SessionState::kExited)};
    EXPECT_EQ(NoteAndEnforce(window, {ended}).pages, 6u);
    EXPECT_EQ(window.LimitsOf(1), WindowLimits{});
  });
  EXPECT_EQ(WindowOf(1).limits, own);
}

// The forwarder has sent the pages up to the third: the other trimmed
// pages are lost to it, counted as retention's losses are.
TEST_F(RollingWindowTest, ForwardCursor_UnsentPagesTrimmed_CountedLostToForwarder) {
  const std::vector<StoreBatch> batches = WriteSession();
  const std::string third =
      QueryColumn(path_, "SELECT id FROM span_pages ORDER BY first_start_ns LIMIT 1 OFFSET 2")[0];
  QueryColumn(path_,
              "INSERT INTO forward_cursor(id, store_id, page_id, spans_sent, batches_sent, "
              "spans_lost_to_retention) VALUES(1, 7, " +
                  third + ", 0, 0, 0)");
  Enforce({.keep_last_ns = 35 * kSecond}, batches);
  EXPECT_EQ(QueryColumn(path_, "SELECT spans_lost_to_retention FROM forward_cursor"),
            std::vector<std::string>{std::to_string(3 * kSpansPerPage)});
}

// The store runs the window after each commit, and counts what it trimmed.
TEST_F(RollingWindowTest, Store_KeepLast_TrimsAsBatchesCommitAndCounts) {
  Result<std::unique_ptr<SpanStore>> store =
      SpanStore::Open({.db_path = path_, .keep_last_ns = 35 * kSecond});
  ASSERT_TRUE(store.ok()) << store.status().message();
  for (size_t i = 0; i < kPages; ++i) {
    StoreBatch batch;
    batch.sequence = i + 1;
    batch.sessions = {MakeSession(1)};
    batch.spans = {
        {1, SpanRun(1 + i * kSpansPerPage, static_cast<int64_t>(i) * 10 * kSecond, kSpansPerPage)}};
    ASSERT_TRUE(store.value()->Submit(std::move(batch)));
  }
  ASSERT_TRUE(store.value()->Flush(20'000));
  WaitForTrimmedByWindow(*store.value(), 6 * kSpansPerPage);
  const StoreStatus status = store.value()->GetStatus();
  EXPECT_EQ(status.spans_trimmed_by_window, 6 * kSpansPerPage);
  EXPECT_EQ(status.write_errors, 0u) << status.last_error;
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  EXPECT_EQ(TrimOf(1).spans, 6 * kSpansPerPage) << "a batch's record leaves the trim alone";
}

// SetWindow reaches the writer between batches; later batches' records
// leave the session's own window alone, and the window trims by it.
TEST_F(RollingWindowTest, Store_SetWindow_TrimsByTheSessionsOwnAsBatchesCommit) {
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto submit = [&](size_t i) {
    StoreBatch batch;
    batch.sequence = i + 1;
    batch.sessions = {MakeSession(1)};
    batch.spans = {
        {1, SpanRun(1 + i * kSpansPerPage, static_cast<int64_t>(i) * 10 * kSecond, kSpansPerPage)}};
    ASSERT_TRUE(store.value()->Submit(std::move(batch)));
  };
  submit(0);
  ASSERT_TRUE(store.value()->Flush(20'000));
  const WindowLimits own{.keep_last_ns = 35 * kSecond};
  Result<WindowLimits> set = store.value()->SetWindow(1, own, 10'000);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set.value(), own);
  for (size_t i = 1; i < kPages; ++i) submit(i);
  ASSERT_TRUE(store.value()->Flush(20'000));
  WaitForTrimmedByWindow(*store.value(), 6 * kSpansPerPage);
  EXPECT_EQ(store.value()->GetStatus().spans_trimmed_by_window, 6 * kSpansPerPage);
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  EXPECT_EQ(WindowOf(1), (SessionWindow{.overridden = true, .limits = own}));
  EXPECT_EQ(store.value()->SetWindow(7, own, 10'000).status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace optrace::daemon
