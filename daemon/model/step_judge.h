// Judging steps one at a time: each step's duration against the median of
// the steps before it. `optrace steps` judges a stored session with it
// (query/step_judgement), and the store judges steps as they commit, so
// that a slow step keeps its window (storage/slow_step_keep).
#ifndef OPTRACE_DAEMON_MODEL_STEP_JUDGE_H_
#define OPTRACE_DAEMON_MODEL_STEP_JUDGE_H_

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace optrace::daemon {

// The defaults of the rules, and the largest window allowed.
inline constexpr double kDefaultSlowFactor = 1.5;
inline constexpr uint32_t kDefaultStepWindow = 20;
inline constexpr uint32_t kMaxStepWindow = 1000;
inline constexpr uint32_t kDefaultWarmupSteps = 3;

// What makes a step slow: longer than slow_factor times the median of up
// to `window` non-warm-up steps before it; the first `warmup` steps are
// warm-up.
struct StepJudgeRules {
  double slow_factor = kDefaultSlowFactor;
  uint32_t window = kDefaultStepWindow;
  uint32_t warmup = kDefaultWarmupSteps;
};

// What one step was judged to be.
struct StepVerdict {
  bool warmup = false;
  bool slow = false;
  uint64_t baseline_ns = 0;  // the median it was judged by; 0 when none
};

// Judges steps in step order: each later step's baseline is the median
// of the durations of up to `window` non-warm-up steps before it (slow
// ones included: the median shrugs them off). The first step after
// warm-up has no baseline and is never slow. Holds `window` durations.
// Thread rules: a value type.
class RollingStepJudge {
 public:
  explicit RollingStepJudge(StepJudgeRules rules) : rules_(rules) {}

  // The verdict of the next step, `duration_ns` long.
  StepVerdict Next(uint64_t duration_ns);

  uint64_t steps() const { return steps_; }  // judged so far

 private:
  StepJudgeRules rules_;
  uint64_t steps_ = 0;
  std::deque<uint64_t> window_;    // the last `window` non-warm-up durations
  std::vector<uint64_t> scratch_;  // the window, reordered by MedianOf
};

// The median of `values` (the mean of the middle two when their count is
// even, rounded down); 0 for none. May reorder `values`. Thread rules: pure.
uint64_t MedianOf(std::span<uint64_t> values);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_STEP_JUDGE_H_
