// Where a session's steps are: explicit optrace.step spans, else PyTorch's
// ProfilerStep#N ranges, else the ends of its first optimizer's
// Optimizer.step# ranges.
#ifndef OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_
#define OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/span.h"
#include "optrace/optrace.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// The op name that liboptrace's step API records (optrace_step_begin,
// optrace::Step, optrace.step()): OPTRACE_STEP_NAME.
inline constexpr std::string_view kExplicitStepName = OPTRACE_STEP_NAME;
// PyTorch's profiler step range, as liboptrace_torch names it (the number
// is a counter sample of the range).
inline constexpr std::string_view kProfilerStepName = "ProfilerStep#";
// The prefix of PyTorch's optimizer step ranges ("Optimizer.step#SGD.step").
inline constexpr std::string_view kOptimizerStepPrefix = "Optimizer.step#";

// What a span's name makes it to step detection.
enum class StepMarkerKind : uint8_t { kNone, kExplicit, kProfiler, kOptimizer };

// The kind of a span named `name`. Thread rules: pure.
StepMarkerKind StepMarkerKindOf(std::string_view name);

// One OK span that marks steps.
struct StepMarker {
  uint64_t op_id = 0;
  int64_t start_ns = 0;
  uint64_t duration_ns = 0;
  StringId name = 0;
  StepMarkerKind kind = StepMarkerKind::kNone;
};

// One step: [start_ns, end_ns).
struct StepInterval {
  uint64_t number = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t marker_op_id = 0;  // the span that is the step (0 when its end only marks it)
};

// A session's steps, by start.
struct DetectedSteps {
  v1::StepSource source = v1::STEP_SOURCE_UNSPECIFIED;
  std::vector<StepInterval> steps;
};

// The steps that `markers` (any order) make. Explicit markers win, then
// profiler ones, then optimizer ones; other kinds are ignored. Explicit
// steps are numbered from 1 by start; profiler steps by
// `profiler_numbers` (a marker's op id -> its ProfilerStep number), from 1
// where a marker has none; with optimizer ranges, only those named as the
// earliest one is (the first optimizer: a second optimizer or gradient
// accumulation does not split steps), the first step opens at
// `first_op_start_ns` and each range's end closes a step and opens the
// next. Thread rules: pure.
DetectedSteps DetectSteps(std::vector<StepMarker> markers, int64_t first_op_start_ns,
                          const std::unordered_map<uint64_t, int64_t>& profiler_numbers);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_
