// The steps table, the explanation's table and its folded tail, and the
// step rules' options.
#include "steps_command.h"

#include <gtest/gtest.h>

#include <string>

#include "step_rules_options.h"
#include "subprocess.h"
#include "why_command.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

v1::GetStepsResponse ThreeSteps() {
  v1::GetStepsResponse steps;
  steps.set_source(v1::STEP_SOURCE_OPTIMIZER);
  steps.set_steps_total(5);
  steps.set_slow_steps(1);
  steps.set_p50_ns(2'000'000);
  steps.set_p95_ns(8'000'000);
  steps.set_p99_ns(8'000'000);
  steps.mutable_rules()->set_slow_factor(1.5);
  steps.mutable_rules()->set_window(20);
  steps.mutable_rules()->set_warmup(3);
  for (uint64_t number : {3, 4, 5}) {
    v1::Step* step = steps.add_steps();
    step->set_number(number);
    step->set_start_unix_ns(1'000'000'000 + static_cast<int64_t>(number) * 10'000'000);
    step->set_duration_ns(number == 5 ? 8'000'000 : 2'000'000);
    step->set_ops(number == 5 ? 12 : 10);
    step->set_top_op(number == 5 ? "aten::_linalg_svd" : "aten::mm");
    step->set_top_op_tag(number == 5 ? "" : "mm_8x8x8_f32");
    step->set_top_op_self_ns(number == 5 ? 6'000'000 : 1'000'000);
    step->set_slow(number == 5);
    step->set_warmup(number == 3);
    step->set_baseline_ns(number == 5 ? 2'000'000 : 0);
  }
  return steps;
}

TEST(StepsTableTest, Steps_MarksTopOpsAndTheSummary) {
  const auto lines = SplitLines(RenderStepsTable(ThreeSteps(), 0));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_NE(lines[1].find("+0 ns  2.00 ms   10  warm-up"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("aten::mm [mm_8x8x8_f32] 1.00 ms"), std::string::npos) << lines[1];
  EXPECT_NE(lines[3].find("slow (4.00x median)"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("aten::_linalg_svd 6.00 ms"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4],
            "5 steps (the last 3 listed), 1 slow (over 1.50x the median of the 20 before); "
            "p50 2.00 ms, p95 8.00 ms, p99 8.00 ms without the 3 warm-up");
  EXPECT_EQ(lines[5], "from PyTorch optimizer steps (Optimizer.step#, first optimizer)");
}

TEST(StepsTableTest, TrimmedStepAndFoldedRecords_TimeShownOpsSayTrimmed) {
  v1::GetStepsResponse steps = ThreeSteps();
  v1::Step* first = steps.mutable_steps(0);
  first->set_trimmed(true);
  first->set_ops(0);
  first->clear_top_op();
  first->clear_top_op_tag();
  first->set_top_op_self_ns(0);
  steps.set_steps_folded(2);
  const auto lines = SplitLines(RenderStepsTable(steps, 0));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_NE(lines[1].find("+0 ns  2.00 ms    -  warm-up"), std::string::npos) << lines[1];
  EXPECT_TRUE(lines[1].ends_with(" trimmed")) << lines[1];
  EXPECT_NE(lines[2].find("aten::mm [mm_8x8x8_f32] 1.00 ms"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[5],
            "from PyTorch optimizer steps (Optimizer.step#, first optimizer); 2 older steps not "
            "counted (past the daemon's bound on step records)");
}

TEST(StepsTableTest, NoSteps_SaysHowToRecordThem) {
  EXPECT_NE(RenderStepsTable({}, 0).find("optrace.step()"), std::string::npos);
}

TEST(WhyTest, SmallOpsOnlyInTheStepPastEightyPercent_FoldedInOneLine) {
  v1::ExplainStepResponse why;
  why.set_step(5);
  why.set_duration_ns(8'000'000);
  why.set_baseline_ns(2'000'000);
  why.set_extra_ns(6'000'000);
  why.set_slow(true);
  why.add_baseline_steps(4);
  why.add_baseline_steps(6);
  double cumulative = 0;
  auto add = [&](const char* name, uint64_t extra, bool only) {
    v1::StepOpExtra* op = why.add_ops();
    op->set_name(name);
    op->set_self_ns(extra);
    op->set_extra_ns(extra);
    op->set_share(static_cast<double>(extra) / 6e6);
    cumulative += op->share();
    op->set_cumulative_share(cumulative);
    op->set_only_in_step(only);
  };
  add("aten::_linalg_svd", 5'900'000, true);
  add("aten::copy_", 30'000, true);
  add("aten::view", 20'000, true);
  const auto lines = SplitLines(RenderWhy(why, 0));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "slow step 5: 8.00 ms, baseline 2.00 ms (the median of steps 4, 6): 6.00 ms more");
  EXPECT_NE(lines[2].find("+5.90 ms  98.3%  98.3%  5.90 ms         -  aten::_linalg_svd "
                          "(only in this step)"),
            std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[3],
            "and 2 more ops that ran only in this step, each under 1.0% of the extra: +50.0 µs "
            "in all (--json lists them)");
}

TEST(StepRulesOptionsTest, BadValues_UsageErrorsNamingTheOption) {
  StepRulesOptions options;
  options.slow_factor = "0.9";
  const auto low = ToStepRules(options);
  ASSERT_TRUE(std::holds_alternative<CliError>(low));
  EXPECT_NE(std::get<CliError>(low).message.find("--slow-factor"), std::string::npos);
  options.slow_factor = "2x";
  EXPECT_TRUE(std::holds_alternative<CliError>(ToStepRules(options)));
  options.slow_factor = "2";
  options.window = 0;
  const auto window = ToStepRules(options);
  ASSERT_TRUE(std::holds_alternative<CliError>(window));
  EXPECT_NE(std::get<CliError>(window).message.find("--window"), std::string::npos);
  options.window = 5;
  options.warmup = 0;
  const auto rules = ToStepRules(options);
  ASSERT_TRUE(std::holds_alternative<v1::StepRules>(rules));
  EXPECT_EQ(std::get<v1::StepRules>(rules).slow_factor(), 2.0);
  EXPECT_TRUE(std::get<v1::StepRules>(rules).warmup_none());
}

}  // namespace
}  // namespace optrace::cli
