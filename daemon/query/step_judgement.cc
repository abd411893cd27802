#include "query/step_judgement.h"

#include <algorithm>
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

uint64_t MedianOf(std::span<uint64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const uint64_t upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const uint64_t lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

std::vector<StepVerdict> JudgeSteps(std::span<const uint64_t> durations,
                                    const v1::StepRules& rules) {
  std::vector<StepVerdict> verdicts(durations.size());
  const size_t warmup = std::min<size_t>(rules.warmup(), durations.size());
  std::vector<uint64_t> window;
  for (size_t i = 0; i < durations.size(); ++i) {
    StepVerdict& verdict = verdicts[i];
    if (i < warmup) {
      verdict.warmup = true;
      continue;
    }
    const size_t first = std::max(warmup, i >= rules.window() ? i - rules.window() : size_t{0});
    window.assign(durations.begin() + static_cast<std::ptrdiff_t>(first),
                  durations.begin() + static_cast<std::ptrdiff_t>(i));
    verdict.baseline_ns = MedianOf(window);
    verdict.slow =
        !window.empty() && static_cast<double>(durations[i]) >
                               rules.slow_factor() * static_cast<double>(verdict.baseline_ns);
  }
  return verdicts;
}

}  // namespace optrace::daemon
