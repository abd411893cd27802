// Slow and warm-up steps by the rolling median; the rules' defaults and
// their errors.
#include "query/step_judgement.h"

#include <gtest/gtest.h>

#include <vector>

namespace optrace::daemon {
namespace {

// Complete rules; 0 takes each default, and `no_warmup` asks for none.
v1::StepRules Rules(uint32_t window = 0, bool no_warmup = false, double factor = 0) {
  v1::StepRules rules;
  rules.set_window(window);
  rules.set_warmup_none(no_warmup);
  rules.set_slow_factor(factor);
  Result<v1::StepRules> complete = CompleteStepRules(rules, "rules");
  EXPECT_TRUE(complete.ok()) << complete.status().message();
  return complete.ok() ? complete.value() : v1::StepRules{};
}

TEST(MedianOfTest, OddEvenAndEmpty) {
  std::vector<uint64_t> odd{5, 1, 9};
  EXPECT_EQ(MedianOf(odd), 5u);
  std::vector<uint64_t> even{10, 1, 4, 7};
  EXPECT_EQ(MedianOf(even), 5u);  // (4 + 7) / 2 rounded down
  std::vector<uint64_t> none;
  EXPECT_EQ(MedianOf(none), 0u);
}

TEST(StepRulesTest, Defaults_FilledIn) {
  const v1::StepRules rules = Rules();
  EXPECT_EQ(rules.slow_factor(), kDefaultSlowFactor);
  EXPECT_EQ(rules.window(), kDefaultStepWindow);
  EXPECT_EQ(rules.warmup(), kDefaultWarmupSteps);
  v1::StepRules none;
  none.set_warmup_none(true);
  EXPECT_EQ(CompleteStepRules(none, "rules").value().warmup(), 0u);
}

TEST(StepRulesTest, BadRules_InvalidArgumentNamingTheField) {
  v1::StepRules low;
  low.set_slow_factor(0.5);
  const Result<v1::StepRules> a = CompleteStepRules(low, "rules");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(a.status().message().find("rules.slow_factor"), std::string::npos);
  v1::StepRules wide;
  wide.set_window(kMaxStepWindow + 1);
  const Result<v1::StepRules> b = CompleteStepRules(wide, "rules");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("rules.window"), std::string::npos);
  v1::StepRules nan;
  nan.set_slow_factor(std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(CompleteStepRules(nan, "rules").ok());
}

TEST(JudgeStepsTest, SteadyStepsWithOneSlow_OnlyItIsSlow_WarmupFlaggedNotSlow) {
  // A slow first step (warm-up), steady 100s, one 300 at index 8.
  const std::vector<uint64_t> durations{900, 120, 110, 100, 101, 99, 100, 102, 300, 100, 98};
  const std::vector<StepVerdict> verdicts = JudgeSteps(durations, Rules());
  ASSERT_EQ(verdicts.size(), durations.size());
  for (size_t i = 0; i < verdicts.size(); ++i) {
    EXPECT_EQ(verdicts[i].warmup, i < 3) << i;
    EXPECT_EQ(verdicts[i].slow, i == 8) << i;
  }
  EXPECT_EQ(verdicts[3].baseline_ns, 0u);    // no step after warm-up before it
  EXPECT_EQ(verdicts[8].baseline_ns, 100u);  // median of 100 101 99 100 102
  // The slow step is in the next one's window, but the median shrugs it off.
  EXPECT_EQ(verdicts[9].baseline_ns, 100u);
}

TEST(JudgeStepsTest, Window_OnlyTheLastStepsCount) {
  // Steps slow down to 200 and stay: once the window holds only 200s,
  // 250 is not slow (1.25x), while against the old 100s it would be.
  std::vector<uint64_t> durations{100, 100, 100, 200, 200, 200, 250};
  const std::vector<StepVerdict> verdicts = JudgeSteps(durations, Rules(3, true, 1.5));
  EXPECT_FALSE(verdicts[6].slow);
  EXPECT_EQ(verdicts[6].baseline_ns, 200u);
  EXPECT_TRUE(verdicts[3].slow);  // 200 against the median 100
}

TEST(JudgeStepsTest, FewerStepsThanWarmup_AllWarmup) {
  const std::vector<uint64_t> durations{5, 500};
  const std::vector<StepVerdict> verdicts = JudgeSteps(durations, Rules());
  EXPECT_TRUE(verdicts[0].warmup && verdicts[1].warmup);
  EXPECT_FALSE(verdicts[1].slow);
}

}  // namespace
}  // namespace optrace::daemon
