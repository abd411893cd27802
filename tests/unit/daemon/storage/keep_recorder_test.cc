// Keeps through the store (SpanStore::Keep, KeepRecorder): ranges stored
// with the bytes of the pages they overlap, `last` resolved against the
// newest span, merges, budgets refused and counted, and the rolling window
// passing over kept pages (and their instants) however many there are.
#include "storage/keep_recorder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "storage/span_reader.h"
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
constexpr size_t kSpansPerPage = 100;
// SpanRun starts spans 1 us apart: a page's last start is this after its first.
constexpr int64_t kPageSpreadNs = (kSpansPerPage - 1) * 1000;
constexpr int kTimeoutMs = 10'000;

class KeepRecorderTest : public ::testing::Test {
 protected:
  void Open(StoreOptions options = {}) {
    options.db_path = path_;
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
  }

  // Pages [first, last] of running session `session`, one batch each: page
  // i holds kSpansPerPage spans from i * 10 s; page 0 also has an instant
  // at 5 s.
  void WritePages(SessionId session, size_t first, size_t last) {
    for (size_t i = first; i <= last; ++i) {
      StoreBatch batch;
      batch.sequence = ++sequence_;
      if (i == first) batch.sessions = {MakeSession(session)};
      const int64_t start = static_cast<int64_t>(i) * 10 * kSecond;
      batch.spans = {{session, SpanRun(1 + i * kSpansPerPage, start, kSpansPerPage)}};
      if (i == 0) batch.instants = {{session, {Instant{.ts_ns = 5 * kSecond, .kind = 3}}}};
      ASSERT_TRUE(store_->Submit(batch));
    }
    ASSERT_TRUE(store_->Flush(20'000));
  }

  // Page data bytes of `session`'s pages that start from `first_s` to `last_s` s.
  uint64_t PageBytes(SessionId session, int first_s, int last_s) {
    return std::stoull(QueryColumn(
        path_, "SELECT coalesce(sum(length(data)), 0) FROM span_pages WHERE session_id = " +
                   std::to_string(session) + " AND first_start_ns BETWEEN " +
                   std::to_string(first_s * kSecond) + " AND " +
                   std::to_string(last_s * kSecond))[0]);
  }

  std::vector<KeepRecord> Keeps(SessionId session) {
    Result<std::vector<KeepRecord>> keeps = OpenReader(path_)->Keeps(session);
    EXPECT_TRUE(keeps.ok()) << keeps.status().message();
    return keeps.ok() ? keeps.value() : std::vector<KeepRecord>{};
  }

  Result<KeepRecord> KeepRange(SessionId session, int64_t first_ns, int64_t last_ns,
                               std::string reason = "test") {
    return store_->Keep(
        {.session = session, .first_ns = first_ns, .last_ns = last_ns, .reason = reason},
        kTimeoutMs);
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SpanStore> store_;
  uint64_t sequence_ = 0;
};

TEST_F(KeepRecorderTest, Range_OverlappingPages_StoredWithTheirBytes) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 9));
  // [15 s, 35 s] overlaps the pages of 20 s and 30 s only.
  Result<KeepRecord> kept = KeepRange(1, 15 * kSecond, 35 * kSecond, "by hand");
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->bytes, PageBytes(1, 20, 30));
  EXPECT_GT(kept->bytes, 0u);
  EXPECT_GT(kept->created_ns, 0);
  EXPECT_EQ(Keeps(1), std::vector<KeepRecord>{kept.value()});
  EXPECT_EQ(store_->GetStatus().keeps_recorded, 1u);
}

TEST_F(KeepRecorderTest, Last_ResolvedBackFromTheNewestSpanStart) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 9));
  Result<KeepRecord> kept =
      store_->Keep({.session = 1, .last_duration_ns = 25 * kSecond, .reason = "last"}, kTimeoutMs);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->last_ns, 90 * kSecond + kPageSpreadNs);
  EXPECT_EQ(kept->first_ns, 65 * kSecond + kPageSpreadNs);
  EXPECT_EQ(kept->bytes, PageBytes(1, 70, 90));
}

TEST_F(KeepRecorderTest, FarAhead_CutAtKeepAfterPastTheNewestSpan) {
  ASSERT_NO_FATAL_FAILURE(Open({.db_path = path_, .keep_after_ns = 5 * kSecond}));
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 3));
  Result<KeepRecord> kept = KeepRange(1, 25 * kSecond, 1000 * kSecond);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->first_ns, 25 * kSecond);
  EXPECT_EQ(kept->last_ns, 35 * kSecond + kPageSpreadNs);
  // Wholly past the cut: nothing left to keep.
  EXPECT_EQ(KeepRange(1, 100 * kSecond, 200 * kSecond).status().code(),
            Status::Code::kInvalidArgument);
}

TEST_F(KeepRecorderTest, Overlapping_MergedIntoOneRangeWithBothReasons) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 9));
  ASSERT_TRUE(KeepRange(1, 10 * kSecond, 20 * kSecond, "first").ok());
  ASSERT_TRUE(KeepRange(1, 50 * kSecond, 60 * kSecond, "apart").ok());
  Result<KeepRecord> merged = KeepRange(1, 20 * kSecond + 1, 30 * kSecond, "second");
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->first_ns, 10 * kSecond);
  EXPECT_EQ(merged->last_ns, 30 * kSecond);
  EXPECT_EQ(merged->reason, "first; second");
  EXPECT_EQ(merged->bytes, PageBytes(1, 10, 30));
  const std::vector<KeepRecord> keeps = Keeps(1);
  ASSERT_EQ(keeps.size(), 2u);
  EXPECT_EQ(keeps[0], merged.value());
  EXPECT_EQ(keeps[1].reason, "apart");
}

TEST_F(KeepRecorderTest, SessionBudget_KeepBeyondIt_RefusedCountedNothingStored) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 9));
  const uint64_t two_pages = PageBytes(1, 0, 10);
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(Open({.db_path = path_, .keep_session_max_bytes = two_pages}));
  ASSERT_TRUE(KeepRange(1, 0, 10 * kSecond).ok());
  Result<KeepRecord> refused = KeepRange(1, 30 * kSecond, 30 * kSecond);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("per-session keep budget of " +
                                            std::to_string(two_pages) + " bytes"),
            std::string::npos)
      << refused.status().message();
  EXPECT_EQ(Keeps(1).size(), 1u);
  EXPECT_EQ(store_->GetStatus().keeps_refused_by_budget, 1u);
  EXPECT_EQ(store_->GetStatus().keeps_recorded, 1u);
  // A merge that covers no more pages than before still fits.
  EXPECT_TRUE(KeepRange(1, 5 * kSecond, 10 * kSecond).ok());
}

TEST_F(KeepRecorderTest, UidBudget_SharedBySessionsOfOneUid) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 3));
  ASSERT_NO_FATAL_FAILURE(WritePages(2, 0, 3));
  const uint64_t three_pages = PageBytes(1, 0, 20);
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(Open({.db_path = path_, .keep_uid_max_bytes = three_pages}));
  ASSERT_TRUE(KeepRange(1, 0, 10 * kSecond).ok());  // 2 pages of uid 1001
  Result<KeepRecord> refused = KeepRange(2, 0, 10 * kSecond);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("uid 1001's keep budget"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(Keeps(2).empty());
}

TEST_F(KeepRecorderTest, BadRequests_RefusedNamingTheProblem) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 1));
  EXPECT_EQ(KeepRange(9, 0, 1).status().code(), Status::Code::kNotFound);
  Result<KeepRecord> backwards = KeepRange(1, 5, 4);
  EXPECT_EQ(backwards.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(backwards.status().message().find("first_ns 5 is after last_ns 4"), std::string::npos);
  StoreBatch empty;
  empty.sequence = ++sequence_;
  empty.sessions = {MakeSession(3)};
  ASSERT_TRUE(store_->Submit(empty));
  ASSERT_TRUE(store_->Flush(kTimeoutMs));
  Result<KeepRecord> nothing =
      store_->Keep({.session = 3, .last_duration_ns = kSecond, .reason = "x"}, kTimeoutMs);
  EXPECT_EQ(nothing.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(nothing.status().message().find("no stored spans"), std::string::npos);
  EXPECT_EQ(store_->GetStatus().keeps_refused_by_budget, 0u);
}

// More kept pages at the front than the window reads in one look (16): it
// reads on past them and trims the newer pages, and the kept ones, with
// their instant, stay.
TEST_F(KeepRecorderTest, Window_KeptRangeAmongOldestPages_PassedOverNewerTrimmed) {
  ASSERT_NO_FATAL_FAILURE(Open({.db_path = path_, .keep_last_ns = 35 * kSecond}));
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 0, 3));
  // A range that reaches past what is stored holds what arrives in it.
  ASSERT_TRUE(KeepRange(1, 0, 195 * kSecond, "front").ok());
  ASSERT_NO_FATAL_FAILURE(WritePages(1, 4, 39));
  // Flush returns once the last batch is committed; the window trims after.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (store_->GetStatus().spans_trimmed_by_window < 16 * kSpansPerPage &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<std::string> expected;
  for (int i = 0; i <= 19; ++i) expected.push_back(std::to_string(i * 10));
  for (int i = 36; i <= 39; ++i) expected.push_back(std::to_string(i * 10));
  EXPECT_EQ(QueryColumn(path_,
                        "SELECT first_start_ns / 1000000000 FROM span_pages WHERE session_id = 1 "
                        "ORDER BY first_start_ns"),
            expected);
  EXPECT_EQ(store_->GetStatus().spans_trimmed_by_window, 16 * kSpansPerPage);
  EXPECT_EQ(QueryColumn(path_, "SELECT ts_ns / 1000000000 FROM instants WHERE session_id = 1"),
            std::vector<std::string>{"5"});
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

}  // namespace
}  // namespace optrace::daemon
