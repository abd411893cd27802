#include "query/step_judgement.h"

#include <cmath>
#include <string>

namespace optrace::daemon {

Result<v1::StepRules> CompleteStepRules(const v1::StepRules& rules, const char* field) {
  v1::StepRules complete = rules;
  if (complete.slow_factor() == 0) complete.set_slow_factor(kDefaultSlowFactor);
  if (!(complete.slow_factor() >= 1) || !std::isfinite(complete.slow_factor())) {
    return Status::InvalidArgument(std::string(field) + ".slow_factor " +
                                   std::to_string(rules.slow_factor()) +
                                   ": a step is slow past a multiple of the median, at least 1");
  }
  if (complete.window() == 0) complete.set_window(kDefaultStepWindow);
  if (complete.window() > kMaxStepWindow) {
    return Status::InvalidArgument(std::string(field) + ".window " +
                                   std::to_string(rules.window()) + " is more than the most, " +
                                   std::to_string(kMaxStepWindow) + " steps");
  }
  if (complete.warmup_none()) {
    complete.set_warmup(0);
  } else if (complete.warmup() == 0) {
    complete.set_warmup(kDefaultWarmupSteps);
  }
  return complete;
}

std::vector<StepVerdict> JudgeSteps(std::span<const uint64_t> durations,
                                    const v1::StepRules& rules) {
  RollingStepJudge judge({rules.slow_factor(), rules.window(), rules.warmup()});
  std::vector<StepVerdict> verdicts;
  verdicts.reserve(durations.size());
  for (uint64_t duration : durations) verdicts.push_back(judge.Next(duration));
  return verdicts;
}

}  // namespace optrace::daemon
