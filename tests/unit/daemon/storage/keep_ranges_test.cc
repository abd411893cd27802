// Keep ranges: a new keep merges with the keeps it overlaps or touches
// (transitively), reasons joined without repeats; budgets refuse by
// session, uid and database, naming the budget.
#include "storage/keep_ranges.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::daemon {
namespace {

KeepRecord Keep(int64_t first_ns, int64_t last_ns, std::string reason, int64_t created_ns = 100) {
  return {.session = 1,
          .first_ns = first_ns,
          .last_ns = last_ns,
          .reason = std::move(reason),
          .created_ns = created_ns};
}

TEST(KeepRangesTest, Merge_Disjoint_NothingAbsorbed) {
  const std::vector<KeepRecord> existing = {Keep(0, 10, "a"), Keep(30, 40, "b")};
  const KeepMerge merge = MergeKeep(existing, Keep(15, 20, "c"));
  EXPECT_TRUE(merge.absorbed.empty());
  EXPECT_EQ(merge.merged.first_ns, 15);
  EXPECT_EQ(merge.merged.last_ns, 20);
  EXPECT_EQ(merge.merged.reason, "c");
}

TEST(KeepRangesTest, Merge_Adjacent_JoinedIntoOne) {
  const std::vector<KeepRecord> existing = {Keep(0, 10, "a"), Keep(30, 40, "b")};
  // 11 follows 10 and 29 precedes 30: both neighbours join.
  const KeepMerge merge = MergeKeep(existing, Keep(11, 29, "c", 50));
  EXPECT_EQ(merge.absorbed, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(merge.merged.first_ns, 0);
  EXPECT_EQ(merge.merged.last_ns, 40);
  EXPECT_EQ(merge.merged.reason, "a; c; b");
  EXPECT_EQ(merge.merged.created_ns, 50) << "the earliest";
}

TEST(KeepRangesTest, Merge_OneNanosecondGap_NotJoined) {
  const std::vector<KeepRecord> existing = {Keep(0, 10, "a")};
  EXPECT_TRUE(MergeKeep(existing, Keep(12, 20, "b")).absorbed.empty());
}

TEST(KeepRangesTest, Merge_Overlapping_UnionAndReasonsWithoutRepeats) {
  const std::vector<KeepRecord> existing = {Keep(0, 10, "crash; slow: step"),
                                            Keep(20, 30, "crash")};
  const KeepMerge merge = MergeKeep(existing, Keep(5, 25, "slow: step"));
  EXPECT_EQ(merge.absorbed, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(merge.merged.first_ns, 0);
  EXPECT_EQ(merge.merged.last_ns, 30);
  EXPECT_EQ(merge.merged.reason, "crash; slow: step");
}

TEST(KeepRangesTest, Merge_ContainedInExisting_ExistingRange) {
  const std::vector<KeepRecord> existing = {Keep(0, 100, "a")};
  const KeepMerge merge = MergeKeep(existing, Keep(10, 20, "a"));
  EXPECT_EQ(merge.absorbed, (std::vector<size_t>{0}));
  EXPECT_EQ(merge.merged.first_ns, 0);
  EXPECT_EQ(merge.merged.last_ns, 100);
  EXPECT_EQ(merge.merged.reason, "a");
}

TEST(KeepRangesTest, Merge_ManyReasons_StopGrowingPastTheBound) {
  std::vector<KeepRecord> existing;
  for (int i = 0; i < 100; ++i) {
    existing.push_back(Keep(i * 10, i * 10 + 5, "reason number " + std::to_string(i)));
  }
  const KeepMerge merge = MergeKeep(existing, Keep(0, 1000, "all"));
  EXPECT_EQ(merge.absorbed.size(), 100u);
  EXPECT_LT(merge.merged.reason.size(), kMaxKeepReasonBytes + 32);
  EXPECT_EQ(merge.merged.reason.rfind("all; reason number 0; ", 0), 0u) << merge.merged.reason;
}

TEST(KeepRangesTest, Budget_WithinEveryBound_Ok) {
  const KeepBudget budget{
      .session_max_bytes = 100, .uid_max_bytes = 200, .database_max_bytes = 300};
  EXPECT_TRUE(CheckKeepBudget(budget, {.session = 50, .uid = 150, .database = 250}, 50, 1, 7).ok());
  EXPECT_TRUE(CheckKeepBudget({}, {.session = 1u << 30}, 1u << 30, 1, 7).ok()) << "0 = unbounded";
}

TEST(KeepRangesTest, Budget_EachBoundExceeded_RefusedNamingIt) {
  const KeepBudget budget{
      .session_max_bytes = 100, .uid_max_bytes = 200, .database_max_bytes = 300};
  const struct {
    KeptBytes held;
    const char* named;
  } cases[] = {
      {{.session = 60, .uid = 60, .database = 60}, "per-session keep budget of 100 bytes (60 kept"},
      {{.session = 0, .uid = 160, .database = 160}, "uid 7's keep budget of 200 bytes (160 kept"},
      {{.session = 0, .uid = 0, .database = 260}, "database's (half of retention_max_bytes) keep"},
  };
  for (const auto& c : cases) {
    const Status refused = CheckKeepBudget(budget, c.held, 41, 3, 7);
    EXPECT_EQ(refused.code(), Status::Code::kResourceExhausted) << c.named;
    EXPECT_NE(refused.message().find(c.named), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("keep of session 3 refused"), std::string::npos);
    EXPECT_NE(refused.message().find("41 more asked"), std::string::npos);
  }
}

}  // namespace
}  // namespace optrace::daemon
