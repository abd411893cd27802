// BatchWriter's aggregates: the totals in every batch's transaction, the
// sketches put off within the write interval, then complete.
#include "storage/batch_writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <vector>

#include "model/duration_sketch.h"
#include "storage/schema.h"
#include "storage/span_reader.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSpan;
using testing::OpenReader;

class BatchWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::OpenPreparedDb(path_);
    ASSERT_NE(db_, nullptr);
  }

  void CreateWriter(std::chrono::milliseconds sketch_write_interval) {
    testing::StoreWriter made = testing::OpenStoreWriter(*db_, sketch_write_interval);
    ASSERT_NE(made.writer, nullptr);
    uses_ = std::move(made.uses);
    writer_ = std::move(made.writer);
  }

  // A batch of `count` ok spans of session 1, name 1, from op id `first`.
  static StoreBatch Spans(uint64_t first, uint64_t count) {
    StoreBatch batch;
    batch.spans.push_back({1, {}});
    for (uint64_t i = first; i < first + count; ++i) {
      batch.spans[0].spans.push_back(MakeSpan(i, static_cast<int64_t>(i), 1, i * 100));
    }
    return batch;
  }

  // Session 1's one aggregate row: its ok count and its sketch's count.
  std::pair<uint64_t, uint64_t> OkAndSketchCounts() {
    Result<std::vector<OpAggregateRow>> rows = OpenReader(path_)->Aggregates(1);
    EXPECT_TRUE(rows.ok() && rows->size() == 1);
    if (!rows.ok() || rows->size() != 1) return {0, 0};
    const OpAggregateRow& row = rows.value()[0];
    if (row.sketch.empty()) return {row.totals.ok_count, 0};
    Result<DurationSketch> sketch = DurationSketch::Parse(row.sketch);
    EXPECT_TRUE(sketch.ok());
    return {row.totals.ok_count, sketch.ok() ? sketch->Count() : 0};
  }

  testing::TempFolder dir_;
  const std::string path_ = dir_.path() + "/trace.db";
  std::unique_ptr<SqliteConnection> db_;
  std::unique_ptr<StringUses> uses_;
  std::unique_ptr<BatchWriter> writer_;
};

TEST_F(BatchWriterTest, Write_NoInterval_SketchCoversTheTotalsAfterEachBatch) {
  ASSERT_NO_FATAL_FAILURE(CreateWriter(std::chrono::milliseconds(0)));
  ASSERT_TRUE(writer_->Write(Spans(1, 100)).ok());
  EXPECT_EQ(OkAndSketchCounts(), std::make_pair(uint64_t{100}, uint64_t{100}));
  ASSERT_TRUE(writer_->Write(Spans(101, 50)).ok());
  EXPECT_EQ(OkAndSketchCounts(), std::make_pair(uint64_t{150}, uint64_t{150}));
}

TEST_F(BatchWriterTest, Write_WithinInterval_SketchesPutOffUntilTheSessionEnds) {
  ASSERT_NO_FATAL_FAILURE(CreateWriter(std::chrono::hours(1)));
  // The first batch writes its sketch (none was written before); the next
  // ones, within the interval, only their totals.
  ASSERT_TRUE(writer_->Write(Spans(1, 10)).ok());
  EXPECT_EQ(OkAndSketchCounts(), std::make_pair(uint64_t{10}, uint64_t{10}));
  ASSERT_TRUE(writer_->Write(Spans(11, 10)).ok());
  ASSERT_TRUE(writer_->Write(Spans(21, 10)).ok());
  EXPECT_EQ(OkAndSketchCounts(), std::make_pair(uint64_t{30}, uint64_t{10}))
      << "totals are never put off";
  // A batch that ends the session writes every sketch put off.
  StoreBatch last = Spans(31, 10);
  last.sessions = {testing::MakeSession(1, SessionState::kExited)};
  ASSERT_TRUE(writer_->Write(last).ok());
  EXPECT_EQ(OkAndSketchCounts(), std::make_pair(uint64_t{40}, uint64_t{40}));
}

}  // namespace
}  // namespace optrace::daemon
