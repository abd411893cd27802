// Which steps are slow or warm-up: each step's duration against the
// rolling median of the steps before it, and the percentiles of step time.
#ifndef OPTRACE_DAEMON_QUERY_STEP_JUDGEMENT_H_
#define OPTRACE_DAEMON_QUERY_STEP_JUDGEMENT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "model/step_judge.h"  // StepVerdict, MedianOf and the defaults
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// `rules` with each unset field's default (kDefaultSlowFactor, ...) filled in, or kInvalidArgument
// naming the field (`field` is its path in the request, e.g. "rules"): a
// slow factor below 1 or not a number, a window past kMaxStepWindow.
Result<v1::StepRules> CompleteStepRules(const v1::StepRules& rules, const char* field);

// The verdicts of steps of `durations` (in step order) under complete
// `rules`: the first `warmup` steps are warm-up; each later step's
// baseline is the median of the durations of up to `window` non-warm-up
// steps before it (slow ones included: the median shrugs them off), and
// it is slow when longer than slow_factor times that (RollingStepJudge).
// The first step after warm-up has no baseline and is never slow.
// Thread rules: pure.
std::vector<StepVerdict> JudgeSteps(std::span<const uint64_t> durations,
                                    const v1::StepRules& rules);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STEP_JUDGEMENT_H_
