// The ranking of a slow step's ops: largest extra first, until 80% of the
// extra is named, then ops that ran only in the step.
#include "query/step_explanation.h"

#include <gtest/gtest.h>

#include <vector>

namespace optrace::daemon {
namespace {

TEST(RankExtraTimeTest, NewOpAndGrownOp_RankedByExtraUntilEightyPercent) {
  // Baselines: ops 1 (100) and 2 (50) in each. The step: 1 grew by 10,
  // 2 by 5, and op 3 (85) ran only in it. Extra 100: op 3 alone names 85%.
  const std::vector<std::vector<OpSelfTime>> baselines{
      {{1, 0, 100}, {2, 0, 50}}, {{1, 0, 100}, {2, 0, 50}}, {{1, 0, 90}, {2, 0, 50}}};
  const std::vector<OpSelfTime> step{{1, 0, 110}, {2, 0, 55}, {3, 0, 85}};
  const std::vector<OpExtraTime> ranked = RankExtraTime(step, baselines, 100);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].name, 3u);
  EXPECT_EQ(ranked[0].extra_ns, 85u);
  EXPECT_TRUE(ranked[0].only_in_step);
  EXPECT_EQ(ranked[0].baseline_ns, 0u);
}

TEST(RankExtraTimeTest, ManySmallExtras_AsManyAsNeededForEightyPercent) {
  const std::vector<std::vector<OpSelfTime>> baselines{{{1, 0, 10}, {2, 0, 10}, {3, 0, 10}}};
  const std::vector<OpSelfTime> step{{1, 0, 50}, {2, 0, 40}, {3, 0, 30}};
  // Extras 40, 30, 20 of 90: 40 + 30 = 78% < 80%, so all three.
  const std::vector<OpExtraTime> ranked = RankExtraTime(step, baselines, 90);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].name, 1u);
  EXPECT_EQ(ranked[1].name, 2u);
  EXPECT_EQ(ranked[2].name, 3u);
}

TEST(RankExtraTimeTest, BaselineIsTheMedian_AbsentCountsAsZero) {
  // Op 1 ran in one of three baselines: its median baseline is 0, and it
  // is not "only in step".
  const std::vector<std::vector<OpSelfTime>> baselines{{{1, 0, 70}}, {{2, 0, 1}}, {{2, 0, 1}}};
  const std::vector<OpSelfTime> step{{1, 0, 70}};
  const std::vector<OpExtraTime> ranked = RankExtraTime(step, baselines, 70);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].baseline_ns, 0u);
  EXPECT_FALSE(ranked[0].only_in_step);
}

TEST(RankExtraTimeTest, NoExtra_OnlyOpsThatRanOnlyInTheStep) {
  const std::vector<std::vector<OpSelfTime>> baselines{{{1, 0, 100}}};
  const std::vector<OpSelfTime> step{{1, 0, 100}, {2, 7, 3}};
  const std::vector<OpExtraTime> ranked = RankExtraTime(step, baselines, 0);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].name, 2u);
  EXPECT_EQ(ranked[0].tag, 7u);
  EXPECT_TRUE(ranked[0].only_in_step);
}

TEST(RankExtraTimeTest, SameNameOtherTag_AnotherOp) {
  const std::vector<std::vector<OpSelfTime>> baselines{{{1, 5, 100}}};
  const std::vector<OpSelfTime> step{{1, 5, 100}, {1, 6, 40}};
  const std::vector<OpExtraTime> ranked = RankExtraTime(step, baselines, 40);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].tag, 6u);
}

}  // namespace
}  // namespace optrace::daemon
