// The slow-step trigger (SlowStepKeeps): explicit steps judged as they
// commit by the default rules (warm-up 3, 1.5x the median of the 20 steps
// before), a slow one kept over its own time with reason "slow step N";
// ProfilerStep# ranges when a session has no explicit steps, explicit ones
// winning; names learnt from new strings or the stored dictionary; ended
// sessions forgotten. Through the store, a slow step's keep is recorded as
// its batch commits. Real SQLite files.
#include "storage/slow_step_keep.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "storage/schema.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::MakeSpan;
using testing::OpenReader;

constexpr int64_t kMs = 1'000'000;
constexpr StringId kStepId = 5;
constexpr StringId kProfilerId = 6;
constexpr StringId kOpId = 7;

class SlowStepKeepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(dir_.path() + "/trace.db", SqliteOpenMode::kReadWriteCreate, 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
    ASSERT_TRUE(PrepareSchema(*db_).ok());
  }

  SlowStepKeeps Create() {
    Result<SlowStepKeeps> keeps = SlowStepKeeps::Create(*db_);
    EXPECT_TRUE(keeps.ok()) << keeps.status().message();
    return std::move(keeps).value();
  }

  testing::TempFolder dir_;
  std::unique_ptr<SqliteConnection> db_;
};

// Steps of session 3 named `name`, one every 100 ms from 0, lasting
// `durations_ms`, each with an op of another name inside it.
std::vector<Span> Steps(StringId name, const std::vector<uint64_t>& durations_ms) {
  std::vector<Span> spans;
  for (size_t i = 0; i < durations_ms.size(); ++i) {
    const int64_t start = static_cast<int64_t>(i) * 100 * kMs;
    spans.push_back(MakeSpan(2 * i + 2, start + 1, kOpId, 500));
    spans.push_back(MakeSpan(2 * i + 1, start, name, durations_ms[i] * kMs));
  }
  return spans;
}

StoreBatch Batch(std::vector<Span> spans, std::vector<std::pair<StringId, std::string>> strings = {
                                              {kStepId, "optrace.step"},
                                              {kProfilerId, "ProfilerStep#"},
                                              {kOpId, "matmul"}}) {
  StoreBatch batch;
  batch.new_strings = std::move(strings);
  batch.spans = {{3, std::move(spans)}};
  return batch;
}

TEST_F(SlowStepKeepTest, ExplicitSteps_SlowOneKeptOverItsTimeWithItsNumber) {
  SlowStepKeeps keeps = Create();
  // Steps 1-3 are warm-up (the 90 ms one too); step 7 is 3x the median.
  const std::vector<KeepRequest> kept =
      keeps.Keeps(Batch(Steps(kStepId, {90, 10, 10, 10, 11, 10, 30, 10})));
  EXPECT_EQ(kept,
            (std::vector<KeepRequest>{{.session = 3,
                                       .first_ns = 600 * kMs,
                                       .last_ns = 630 * kMs,
                                       .last_duration_ns = 0,
                                       .reason = "slow step 7 (3.0x the median before it)"}}));
}

TEST_F(SlowStepKeepTest, StepsAcrossBatches_JudgedByTheStepsBefore) {
  SlowStepKeeps keeps = Create();
  EXPECT_TRUE(keeps.Keeps(Batch(Steps(kStepId, {10, 10, 10, 10, 10}))).empty());
  std::vector<Span> later = Steps(kStepId, {10, 16});
  const std::vector<KeepRequest> kept = keeps.Keeps(Batch(later, {}));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].reason, "slow step 7 (1.6x the median before it)");
}

TEST_F(SlowStepKeepTest, ProfilerSteps_KeptUntilExplicitStepsAppear) {
  SlowStepKeeps keeps = Create();
  EXPECT_EQ(keeps.Keeps(Batch(Steps(kProfilerId, {10, 10, 10, 10, 40}))).size(), 1u);
  // Explicit steps start their own count; profiler ones are ignored after.
  EXPECT_TRUE(keeps.Keeps(Batch(Steps(kStepId, {10, 10, 10, 10}), {})).empty());
  EXPECT_TRUE(keeps.Keeps(Batch(Steps(kProfilerId, {10, 90}), {})).empty());
  EXPECT_EQ(keeps.Keeps(Batch(Steps(kStepId, {50}), {})).at(0).reason,
            "slow step 5 (5.0x the median before it)");
}

TEST_F(SlowStepKeepTest, NamesFromTheStoredDictionary_SessionEnded_Forgotten) {
  ASSERT_TRUE(db_->Exec("INSERT INTO strings(id, text) VALUES(5, 'optrace.step')").ok());
  SlowStepKeeps keeps = Create();
  EXPECT_TRUE(keeps.Keeps(Batch(Steps(kStepId, {10, 10, 10, 10, 10}), {})).empty());
  StoreBatch ended = Batch(Steps(kStepId, {10}), {});
  ended.sessions = {MakeSession(3, SessionState::kExited)};
  EXPECT_TRUE(keeps.Keeps(ended).empty());
  // A new judge: the first steps are warm-up again.
  EXPECT_TRUE(keeps.Keeps(Batch(Steps(kStepId, {90}), {})).empty());
}

TEST_F(SlowStepKeepTest, NoStepNames_IncompleteSteps_NothingKept) {
  SlowStepKeeps keeps = Create();
  EXPECT_TRUE(
      keeps.Keeps(Batch(Steps(kStepId, {10, 10, 10, 10, 90}), {{kOpId, "matmul"}})).empty());
  std::vector<Span> incomplete = Steps(kStepId, {10, 10, 10, 10, 10, 90});
  incomplete.back().status = SpanStatus::kIncomplete;
  incomplete.back().duration_ns = 0;
  EXPECT_TRUE(keeps.Keeps(Batch(incomplete)).empty());
}

// The store records the keep as the batch commits, within the budgets.
TEST_F(SlowStepKeepTest, Store_SlowStepCommitted_KeptAndCounted) {
  const std::string path = dir_.path() + "/store.db";
  Result<std::unique_ptr<SpanStore>> store = SpanStore::Open({.db_path = path});
  ASSERT_TRUE(store.ok()) << store.status().message();
  StoreBatch batch = Batch(Steps(kStepId, {10, 10, 10, 10, 10, 40}));
  batch.sequence = 1;
  batch.sessions = {MakeSession(3)};
  ASSERT_TRUE(store.value()->Submit(batch));
  ASSERT_TRUE(store.value()->Flush(20'000));
  Result<std::vector<KeepRecord>> kept = OpenReader(path)->Keeps(3);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ(kept->at(0).reason, "slow step 6 (4.0x the median before it)");
  EXPECT_EQ(kept->at(0).first_ns, 500 * kMs);
  EXPECT_GT(kept->at(0).bytes, 0u);
  EXPECT_EQ(store.value()->GetStatus().keeps_recorded, 1u);
}

}  // namespace
}  // namespace optrace::daemon
