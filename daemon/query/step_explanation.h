// Why a step was slow: the ops whose self time grew against a baseline,
// ranked until most of the step's extra time is named.
#ifndef OPTRACE_DAEMON_QUERY_STEP_EXPLANATION_H_
#define OPTRACE_DAEMON_QUERY_STEP_EXPLANATION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "model/span.h"

namespace optrace::daemon {

// The share of a step's extra time that the ranked ops name at least.
inline constexpr double kExplainedShare = 0.8;

// The self time of one op (name and tag) in one step.
struct OpSelfTime {
  StringId name = 0;
  StringId tag = 0;
  uint64_t self_ns = 0;
  bool operator==(const OpSelfTime&) const = default;
};

// One op of an explanation.
struct OpExtraTime {
  StringId name = 0;
  StringId tag = 0;
  uint64_t self_ns = 0;      // in the step
  uint64_t baseline_ns = 0;  // the median over the baseline steps (absent counts as 0)
  uint64_t extra_ns = 0;     // self_ns - baseline_ns
  bool only_in_step = false;
};

// The ops that explain `step`'s extra time over `baselines` (each a
// step's ops; a list holds each op once, in any order): every op whose
// self time in the step passed its baseline, largest extra first (ties by
// name id, then tag id), until their extras reach kExplainedShare of
// `extra_ns`; then the remaining ops that ran in the step and in none of
// the baselines, largest first. With no extra time, only the latter.
// Thread rules: pure.
std::vector<OpExtraTime> RankExtraTime(std::span<const OpSelfTime> step,
                                       std::span<const std::vector<OpSelfTime>> baselines,
                                       uint64_t extra_ns);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STEP_EXPLANATION_H_
