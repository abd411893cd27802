#include "model/step_judge.h"

#include <algorithm>
#include <cstddef>

namespace optrace::daemon {

StepVerdict RollingStepJudge::Next(uint64_t duration_ns) {
  StepVerdict verdict;
  if (steps_++ < rules_.warmup) {
    verdict.warmup = true;
    return verdict;
  }
  if (!window_.empty()) {
    scratch_.assign(window_.begin(), window_.end());
    verdict.baseline_ns = MedianOf(scratch_);
    verdict.slow = static_cast<double>(duration_ns) >
                   rules_.slow_factor * static_cast<double>(verdict.baseline_ns);
  }
  window_.push_back(duration_ns);
  if (window_.size() > rules_.window) window_.pop_front();
  return verdict;
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

}  // namespace optrace::daemon
