// ForwardCursor: the durable "acknowledged up to page N" of the forwarder,
// its store id, and its accounting with retention.
#include "forward/forward_cursor.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::QueryColumn;
using testing::SpanRun;

class ForwardCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path_});
    ASSERT_TRUE(store.ok()) << store.status().message();
    for (uint64_t page = 1; page <= 3; ++page) {
      StoreBatch batch;
      batch.sequence = page;
      batch.spans = {{1, SpanRun(page * 100, static_cast<int64_t>(page) * 1'000'000, 10)}};
      ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    }
    ASSERT_TRUE(store.value()->Flush(20'000));
  }

  std::unique_ptr<ForwardCursor> Open() {
    Result<std::unique_ptr<ForwardCursor>> cursor = ForwardCursor::Open(path_);
    EXPECT_TRUE(cursor.ok()) << cursor.status().message();
    return cursor.ok() ? std::move(cursor).value() : nullptr;
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
};

TEST_F(ForwardCursorTest, Open_NewDatabase_RowWithRandomStoreIdNothingSent) {
  auto cursor = Open();
  ASSERT_NE(cursor, nullptr);
  const ForwardProgress progress = cursor->Load().value();
  EXPECT_NE(progress.store_id, 0u);
  EXPECT_EQ(progress.page_id, 0u);
  EXPECT_EQ(progress.spans_sent, 0u);
  cursor.reset();
  EXPECT_EQ(Open()->Load().value().store_id, progress.store_id) << "kept across restarts";
}

TEST_F(ForwardCursorTest, Open_MissingDatabase_NotFoundAndNothingCreated) {
  Result<std::unique_ptr<ForwardCursor>> cursor = ForwardCursor::Open(dir_.path() + "/absent.db");
  ASSERT_FALSE(cursor.ok());
  EXPECT_EQ(cursor.status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/absent.db"));
}

TEST_F(ForwardCursorTest, Advance_TwoPages_CursorAndCountsMoveDurably) {
  auto cursor = Open();
  const SentPage pages[] = {{1, 10}, {2, 10}};
  Result<ForwardProgress> progress = cursor->Advance(pages);
  ASSERT_TRUE(progress.ok()) << progress.status().message();
  EXPECT_EQ(progress->page_id, 2u);
  EXPECT_EQ(progress->spans_sent, 20u);
  EXPECT_EQ(progress->batches_sent, 1u);
  EXPECT_EQ(QueryColumn(path_, "SELECT page_id || ' ' || spans_sent FROM forward_cursor"),
            std::vector<std::string>{"2 20"});
}

// Retention deleted page 3 while it was on its way: retention counted it
// lost (it was above the cursor), the forwarder then sent it after all.
TEST_F(ForwardCursorTest, Advance_PageDeletedWhileSent_TakenBackOutOfLost) {
  auto cursor = Open();
  QueryColumn(path_, "UPDATE forward_cursor SET spans_lost_to_retention = 25");
  QueryColumn(path_, "DELETE FROM span_pages WHERE id = 3");
  const SentPage pages[] = {{1, 10}, {2, 10}, {3, 10}};
  Result<ForwardProgress> progress = cursor->Advance(pages);
  ASSERT_TRUE(progress.ok()) << progress.status().message();
  EXPECT_EQ(progress->spans_lost_to_retention, 15u);
  EXPECT_EQ(progress->spans_sent, 30u);
}

}  // namespace
}  // namespace optrace::daemon
