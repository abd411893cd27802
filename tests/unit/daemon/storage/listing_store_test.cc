// Source listings in the store: stored compressed with their batch, read
// back exactly, de-duplicated per session and file, deleted with their
// session by retention and never trimmed by the rolling window; stored
// bytes that were damaged are refused with a message naming the listing.
#include "storage/listing_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

SourceListing Listing(SessionId session, std::string file, uint32_t first_line, std::string text,
                      bool registered = false) {
  return {.session = session,
          .file = std::move(file),
          .first_line = first_line,
          .registered = registered,
          .text = std::move(text)};
}

// Forty lines of Python, repetitive enough to compress well.
std::string FortyLines() {
  std::string text;
  for (int i = 1; i <= 40; ++i) text += "    x = self.fc" + std::to_string(i) + "(x)\n";
  return text;
}

class ListingStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SpanStore> Open(StoreOptions options = {}) {
    options.db_path = path_;
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status().message();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Submits `batch` as the next one to `store` and waits for it.
  void Commit(SpanStore& store, StoreBatch batch) {
    batch.sequence = ++sequence_;
    ASSERT_TRUE(store.Submit(std::move(batch)));
    ASSERT_TRUE(store.Flush(10'000));
  }

  std::vector<StoredListing> Read(SessionId session, const std::string& file) {
    Result<std::vector<StoredListing>> listings = OpenReader(path_)->Listings(session, file);
    EXPECT_TRUE(listings.ok()) << listings.status().message();
    return listings.ok() ? std::move(listings).value() : std::vector<StoredListing>{};
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  uint64_t sequence_ = 0;
};

TEST(ListingLinesTest, TrailingNewline_EndsTheLastLineWithoutAnEmptyOne) {
  EXPECT_EQ(ListingLines(""), std::vector<std::string_view>{});
  EXPECT_EQ(ListingLines("a"), std::vector<std::string_view>{"a"});
  EXPECT_EQ(ListingLines("a\n"), std::vector<std::string_view>{"a"});
  EXPECT_EQ(ListingLines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(ListingLines("\n"), std::vector<std::string_view>{""});
}

TEST(ListingContentHashTest, FirstLineRegisteredAndText_EachChangeTheHash) {
  const SourceListing base = Listing(1, "model.py", 10, "x = 1");
  EXPECT_EQ(ListingContentHash(base), ListingContentHash(Listing(2, "other.py", 10, "x = 1")))
      << "the session and the file are the row's key, not its content";
  EXPECT_NE(ListingContentHash(base), ListingContentHash(Listing(1, "model.py", 11, "x = 1")));
  EXPECT_NE(ListingContentHash(base), ListingContentHash(Listing(1, "model.py", 10, "x = 2")));
  EXPECT_NE(ListingContentHash(base),
            ListingContentHash(Listing(1, "model.py", 10, "x = 1", /*registered=*/true)));
}

TEST_F(ListingStoreTest, Submit_Listing_StoredCompressedAndReadBackExactly) {
  auto store = Open();
  StoreBatch batch;
  batch.sessions = {MakeSession(1)};
  batch.listings = {Listing(1, "model.py", 30, FortyLines()),
                    Listing(1, "ir/dispatch_7.mlir", 1, "func @f() {\n}", /*registered=*/true)};
  ASSERT_NO_FATAL_FAILURE(Commit(*store, batch));
  const std::vector<StoredListing> model = Read(1, "model.py");
  ASSERT_EQ(model.size(), 1u);
  EXPECT_EQ(model[0].file, "model.py");
  EXPECT_EQ(model[0].first_line, 30u);
  EXPECT_EQ(model[0].line_count, 40u);
  EXPECT_FALSE(model[0].registered);
  EXPECT_EQ(model[0].text, FortyLines());
  const std::vector<StoredListing> ir = Read(1, "ir/dispatch_7.mlir");
  ASSERT_EQ(ir.size(), 1u);
  EXPECT_TRUE(ir[0].registered);
  EXPECT_EQ(ir[0].line_count, 2u);
  const uint64_t stored_bytes = std::stoull(
      QueryColumn(path_, "SELECT length(text_zlib) FROM listings WHERE file = 'model.py'")[0]);
  EXPECT_LT(stored_bytes, FortyLines().size() / 2) << "the text is stored compressed";
  EXPECT_TRUE(Read(1, "absent.py").empty());
  EXPECT_TRUE(Read(2, "model.py").empty());
}

TEST_F(ListingStoreTest, Submit_SameListingAgain_StoredOnceButOtherContentAndSessionsApart) {
  auto store = Open();
  StoreBatch first;
  first.sessions = {MakeSession(1), MakeSession(2)};
  first.listings = {Listing(1, "model.py", 1, "a\nb"), Listing(1, "model.py", 1, "a\nb")};
  ASSERT_NO_FATAL_FAILURE(Commit(*store, first));
  StoreBatch second;
  second.listings = {Listing(1, "model.py", 1, "a\nb"), Listing(1, "model.py", 1, "a\nB"),
                     Listing(1, "model.py", 50, "a\nb"), Listing(2, "model.py", 1, "a\nb")};
  ASSERT_NO_FATAL_FAILURE(Commit(*store, second));
  const std::vector<StoredListing> one = Read(1, "model.py");
  ASSERT_EQ(one.size(), 3u) << "the repeat is ignored; other text or lines are another listing";
  EXPECT_EQ(one[0].text, "a\nb");
  EXPECT_EQ(one[1].text, "a\nB");
  EXPECT_EQ(one[2].first_line, 50u);
  EXPECT_EQ(Read(2, "model.py").size(), 1u);
  EXPECT_EQ(store->GetStatus().batches_committed, 2u);
}

TEST_F(ListingStoreTest, Submit_ListingFromLineZero_BatchRefusedNamingIt) {
  auto store = Open();
  StoreBatch batch;
  batch.sessions = {MakeSession(1)};
  batch.listings = {Listing(1, "model.py", 0, "a")};
  ASSERT_NO_FATAL_FAILURE(Commit(*store, batch));
  const StoreStatus status = store->GetStatus();
  EXPECT_EQ(status.batches_dropped, 1u);
  EXPECT_NE(status.last_error.find("listing of model.py from line 0"), std::string::npos)
      << status.last_error;
}

TEST_F(ListingStoreTest, Retention_SessionDeleted_ItsListingsWithIt) {
  {
    auto store = Open({.db_path = "", .retention_max_age_ns = 10 * kSecond});
    StoreBatch old_session;
    // Ended long ago: retention's first pass, after this commit, deletes it.
    old_session.sessions = {MakeSession(1, SessionState::kExited, kSecond, 2 * kSecond)};
    old_session.listings = {Listing(1, "model.py", 1, "a")};
    old_session.spans = {{1, SpanRun(1, kSecond, 10)}};
    ASSERT_NO_FATAL_FAILURE(Commit(*store, old_session));
    StoreBatch running;
    running.sessions = {MakeSession(2)};
    running.listings = {Listing(2, "model.py", 1, "a")};
    ASSERT_NO_FATAL_FAILURE(Commit(*store, running));
    EXPECT_EQ(store->GetStatus().sessions_deleted_by_retention, 1u);
  }
  EXPECT_EQ(QueryColumn(path_, "SELECT session_id FROM listings"), std::vector<std::string>{"2"});
  EXPECT_EQ(IntegrityCheck(path_), "ok");
}

TEST_F(ListingStoreTest, RollingWindow_PagesTrimmed_ListingsKept) {
  auto store = Open({.db_path = "", .keep_last_ns = 5 * kSecond});
  StoreBatch first;
  first.sessions = {MakeSession(1)};
  first.spans = {{1, SpanRun(1, 0, 100)}};
  first.listings = {Listing(1, "model.py", 1, "a\nb"), Listing(1, "train.py", 10, "c")};
  ASSERT_NO_FATAL_FAILURE(Commit(*store, first));
  for (int i = 1; i <= 5; ++i) {
    StoreBatch later;
    later.spans = {{1, SpanRun(1 + i * 100, i * 10 * kSecond, 100)}};
    ASSERT_NO_FATAL_FAILURE(Commit(*store, later));
  }
  ASSERT_GT(store->GetStatus().spans_trimmed_by_window, 0u) << "the window trimmed pages";
  EXPECT_EQ(Read(1, "model.py").size(), 1u);
  EXPECT_EQ(Read(1, "train.py").size(), 1u);
}

// A database edited by hand (or damaged): each way a stored listing can
// be wrong is an error that names it, never a crash or a wrong listing.
TEST_F(ListingStoreTest, Malicious_DamagedRows_ErrorsNameTheListing) {
  {
    auto store = Open();
    StoreBatch batch;
    batch.sessions = {MakeSession(1)};
    batch.listings = {Listing(1, "model.py", 1, "a\nb\nc")};
    ASSERT_NO_FATAL_FAILURE(Commit(*store, batch));
  }
  const struct {
    const char* edit;
    const char* expected;
  } cases[] = {
      {"UPDATE listings SET text_bytes = 4", "do not inflate"},
      {"UPDATE listings SET text_bytes = 1000000000", "above the most a listing holds"},
      {"UPDATE listings SET text_zlib = x'00112233'", "do not inflate"},
      {"UPDATE listings SET line_count = 2", "holds 3 lines, not the 2 stored"},
      {"UPDATE listings SET first_line = 0", "numbered from 1"},
      {"UPDATE listings SET first_line = -5", "negative"},
      {"UPDATE listings SET first_line = 4294967295", "go past line 4294967295"},
  };
  for (const auto& c : cases) {
    const std::string backup =
        "CREATE TABLE IF NOT EXISTS listings_backup AS SELECT * FROM listings";
    ASSERT_EQ(QueryColumn(path_, backup), std::vector<std::string>{});
    ASSERT_EQ(QueryColumn(path_, c.edit), std::vector<std::string>{}) << c.edit;
    Result<std::vector<StoredListing>> read = OpenReader(path_)->Listings(1, "model.py");
    ASSERT_FALSE(read.ok()) << c.edit;
    EXPECT_NE(read.status().message().find("listing of model.py"), std::string::npos)
        << read.status().message();
    EXPECT_NE(read.status().message().find(c.expected), std::string::npos)
        << c.edit << ": " << read.status().message();
    ASSERT_EQ(QueryColumn(path_, "DELETE FROM listings"), std::vector<std::string>{});
    ASSERT_EQ(QueryColumn(path_, "INSERT INTO listings SELECT * FROM listings_backup"),
              std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace optrace::daemon
