// The runtime trigger (RuntimeKeeps): a mark named optrace.keep keeps
// keep_before before it to keep_after after it, reason "runtime: " + its
// tag's text read back from the dictionary; its name's id is learnt from a
// batch's new strings or from the stored dictionary; other instants,
// counters and names not yet known keep nothing; repeated keeps of one
// reason make one request. Through the store, the keep is recorded as the
// batch commits. Real SQLite files.
#include "storage/runtime_keep.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "optrace/abi.h"
#include "storage/schema.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::OpenReader;
using testing::SpanRun;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kBeforeNs = 30 * kSecond;
constexpr int64_t kAfterNs = 10 * kSecond;
constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);
constexpr auto kCounter = static_cast<uint8_t>(abi::EventKind::kCounter);
// Dictionary ids of the tests' strings.
constexpr StringId kKeepId = 5;
constexpr StringId kOomId = 6;
constexpr StringId kNanId = 7;
constexpr StringId kOtherId = 8;

Instant MarkAt(int64_t ts_ns, StringId name, StringId tag, uint8_t kind = kMark) {
  return {.ts_ns = ts_ns, .name = name, .tag = tag, .kind = kind, .level = 1};
}

class RuntimeKeepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(dir_.path() + "/trace.db", SqliteOpenMode::kReadWriteCreate, 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
    ASSERT_TRUE(PrepareSchema(*db_).ok());
  }

  // Stores `strings` in the dictionary, as a committed batch has.
  void Store(const std::vector<std::pair<StringId, std::string>>& strings) {
    for (const auto& [id, text] : strings) {
      ASSERT_TRUE(db_->Exec("INSERT INTO strings(id, text) VALUES(" + std::to_string(id) + ", '" +
                            text + "')")
                      .ok());
    }
  }

  std::unique_ptr<RuntimeKeeps> Create() {
    Result<std::unique_ptr<RuntimeKeeps>> keeps = RuntimeKeeps::Create(*db_, kBeforeNs, kAfterNs);
    EXPECT_TRUE(keeps.ok()) << keeps.status().message();
    return keeps.ok() ? std::move(keeps).value() : nullptr;
  }

  testing::TempFolder dir_;
  std::unique_ptr<SqliteConnection> db_;
};

// A committed batch whose new strings are `strings` (stored in the
// dictionary too) and whose instants are `instants` of session 3.
StoreBatch Batch(std::vector<std::pair<StringId, std::string>> strings,
                 std::vector<Instant> instants) {
  StoreBatch batch;
  batch.new_strings = std::move(strings);
  batch.instants = {{3, std::move(instants)}};
  return batch;
}

TEST_F(RuntimeKeepTest, KeepMark_WindowAroundItWithItsReason) {
  const std::vector<std::pair<StringId, std::string>> strings = {
      {kKeepId, "optrace.keep"}, {kOomId, "oom"}, {kOtherId, "step done"}};
  ASSERT_NO_FATAL_FAILURE(Store(strings));
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  const std::vector<KeepRequest> keeps = runtime->Keeps(
      Batch(strings, {MarkAt(90 * kSecond, kOtherId, 0), MarkAt(100 * kSecond, kKeepId, kOomId)}));
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0].session, 3u);
  EXPECT_EQ(keeps[0].first_ns, 70 * kSecond);
  EXPECT_EQ(keeps[0].last_ns, 110 * kSecond);
  EXPECT_EQ(keeps[0].last_duration_ns, 0);
  EXPECT_EQ(keeps[0].reason, "runtime: oom");
}

TEST_F(RuntimeKeepTest, TagInternedInAnEarlierBatch_ReadBackFromTheDictionary) {
  ASSERT_NO_FATAL_FAILURE(Store({{kKeepId, "optrace.keep"}, {kNanId, "nan in loss"}}));
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  // Neither string is new in this batch: the name from the stored
  // dictionary at Create, the tag read back.
  const std::vector<KeepRequest> keeps =
      runtime->Keeps(Batch({}, {MarkAt(50 * kSecond, kKeepId, kNanId)}));
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0].reason, "runtime: nan in loss");
  // No tag (a mark made by hand): the default reason.
  EXPECT_EQ(runtime->Keeps(Batch({}, {MarkAt(kSecond, kKeepId, 0)}))[0].reason, "runtime: keep");
}

TEST_F(RuntimeKeepTest, NameNotYetInTheDictionary_NoKeepUntilABatchBringsIt) {
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  // Id 5 is not optrace.keep yet: another name's mark keeps nothing.
  EXPECT_TRUE(runtime->Keeps(Batch({}, {MarkAt(kSecond, kKeepId, 0)})).empty());
  const std::vector<std::pair<StringId, std::string>> strings = {{kKeepId, "optrace.keep"},
                                                                 {kOomId, "oom"}};
  ASSERT_NO_FATAL_FAILURE(Store(strings));
  EXPECT_EQ(runtime->Keeps(Batch(strings, {MarkAt(kSecond, kKeepId, kOomId)})).size(), 1u);
  // Learnt for good: later batches need not bring it.
  EXPECT_EQ(runtime->Keeps(Batch({}, {MarkAt(2 * kSecond, kKeepId, kOomId)})).size(), 1u);
}

TEST_F(RuntimeKeepTest, CounterOrOtherName_NoKeep) {
  const std::vector<std::pair<StringId, std::string>> strings = {{kKeepId, "optrace.keep"},
                                                                 {kOtherId, "optrace.keeps"}};
  ASSERT_NO_FATAL_FAILURE(Store(strings));
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  EXPECT_TRUE(runtime
                  ->Keeps(Batch(strings, {MarkAt(kSecond, kKeepId, 0, kCounter),
                                          MarkAt(kSecond, kOtherId, 0)}))
                  .empty());
}

TEST_F(RuntimeKeepTest, RepeatedKeeps_OverlappingOfOneReasonMakeOneRequest) {
  const std::vector<std::pair<StringId, std::string>> strings = {
      {kKeepId, "optrace.keep"}, {kOomId, "oom"}, {kNanId, "nan"}};
  ASSERT_NO_FATAL_FAILURE(Store(strings));
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  StoreBatch batch = Batch(
      strings, {MarkAt(100 * kSecond, kKeepId, kOomId), MarkAt(101 * kSecond, kKeepId, kNanId),
                MarkAt(105 * kSecond, kKeepId, kOomId), MarkAt(500 * kSecond, kKeepId, kOomId)});
  batch.instants.push_back({4, {MarkAt(100 * kSecond, kKeepId, kOomId)}});
  const std::vector<KeepRequest> keeps = runtime->Keeps(batch);
  ASSERT_EQ(keeps.size(), 4u);
  EXPECT_EQ(keeps[0].reason, "runtime: oom");
  EXPECT_EQ(keeps[0].first_ns, 70 * kSecond);
  EXPECT_EQ(keeps[0].last_ns, 115 * kSecond) << "the keeps at 100 s and 105 s, merged";
  EXPECT_EQ(keeps[1].reason, "runtime: nan") << "another reason: its own keep";
  EXPECT_EQ(keeps[2].first_ns, 470 * kSecond) << "too far apart to merge";
  EXPECT_EQ(keeps[3].session, 4u) << "another session: its own keep";
}

TEST_F(RuntimeKeepTest, Malicious_TimestampAtTheEnds_RangeHeldAtTheEnds) {
  const std::vector<std::pair<StringId, std::string>> strings = {{kKeepId, "optrace.keep"}};
  ASSERT_NO_FATAL_FAILURE(Store(strings));
  std::unique_ptr<RuntimeKeeps> runtime = Create();
  ASSERT_NE(runtime, nullptr);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<KeepRequest> keeps =
      runtime->Keeps(Batch(strings, {MarkAt(kMin + 1, kKeepId, 0), MarkAt(kMax - 1, kKeepId, 0)}));
  ASSERT_EQ(keeps.size(), 2u);
  EXPECT_EQ(keeps[0].first_ns, kMin);
  EXPECT_EQ(keeps[1].last_ns, kMax);
}

// The store records a runtime keep as the batch that holds its mark
// commits, through the one path every keep takes.
TEST(RuntimeKeepStoreTest, KeepMarkCommitted_KeepRecordedAroundIt) {
  testing::TempFolder dir;
  const std::string path = dir.path() + "/trace.db";
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open(
      {.db_path = path, .keep_after_ns = 2 * kSecond, .keep_before_ns = 3 * kSecond});
  ASSERT_TRUE(store.ok()) << store.status().message();
  StoreBatch batch;
  batch.sequence = 1;
  batch.new_strings = {{100, "optrace.keep"}, {101, "oom"}};
  batch.sessions = {MakeSession(1)};
  batch.spans = {{1, SpanRun(1, 10 * kSecond, 100)}};
  batch.instants = {{1, {MarkAt(10 * kSecond + 50'000, 100, 101)}}};
  ASSERT_TRUE(store.value()->Submit(batch));
  ASSERT_TRUE(store.value()->Flush(20'000));
  Result<std::vector<KeepRecord>> keeps = OpenReader(path)->Keeps(1);
  ASSERT_TRUE(keeps.ok()) << keeps.status().message();
  ASSERT_EQ(keeps->size(), 1u);
  EXPECT_EQ(keeps->at(0).reason, "runtime: oom");
  EXPECT_EQ(keeps->at(0).first_ns, 7 * kSecond + 50'000);
  EXPECT_EQ(keeps->at(0).last_ns, 12 * kSecond + 50'000);
  EXPECT_GT(keeps->at(0).bytes, 0u);
  EXPECT_EQ(store.value()->GetStatus().keeps_recorded, 1u);
}

}  // namespace
}  // namespace optrace::daemon
