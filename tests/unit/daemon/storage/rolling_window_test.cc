// The rolling window: a session's oldest pages go by duration and by bytes,
// counted on the session, with the instants of their time; pages the
// forwarder had not sent are counted as its losses; the work per pass is
// bounded; sessions that received no spans are left alone.
#include "storage/rolling_window.h"

#include <gtest/gtest.h>

#include <chrono>
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

  // Opens the database as the store's writer does, notes `batches` and runs
  // `passes` passes of at most `max_pages` pages each.
  TrimTotals Enforce(WindowLimits limits, const std::vector<StoreBatch>& batches,
                     size_t max_pages = 256, int passes = 1) {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(path_, SqliteOpenMode::kReadWriteCreate, 1000);
    EXPECT_TRUE(db.ok()) << db.status().message();
    EXPECT_TRUE(PrepareSchema(*db.value()).ok());
    Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db.value());
    EXPECT_TRUE(trimmer.ok()) << trimmer.status().message();
    RollingWindow window(*db.value(), *trimmer.value(), limits);
    for (const StoreBatch& batch : batches) window.Note(batch);
    TrimTotals totals;
    for (int i = 0; i < passes; ++i) {
      Result<TrimTotals> pass = window.Enforce(max_pages);
      EXPECT_TRUE(pass.ok()) << pass.status().message();
      if (pass.ok()) totals += pass.value();
    }
    return totals;
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
  // The window's pass follows each commit: the last one may still run.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (store.value()->GetStatus().spans_trimmed_by_window < 6 * kSpansPerPage &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const StoreStatus status = store.value()->GetStatus();
  EXPECT_EQ(status.spans_trimmed_by_window, 6 * kSpansPerPage);
  EXPECT_EQ(status.write_errors, 0u) << status.last_error;
  EXPECT_EQ(PageStarts(), (std::vector<std::string>{"60", "70", "80", "90"}));
  EXPECT_EQ(TrimOf(1).spans, 6 * kSpansPerPage) << "a batch's record leaves the trim alone";
}

}  // namespace
}  // namespace optrace::daemon
