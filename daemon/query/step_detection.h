// Where a session's steps are: explicit optrace.step spans, else ranges
// marked as steps (a counter named optrace.step_range under each), else
// PyTorch's ProfilerStep#N ranges, else the ends of its first optimizer's
// Optimizer.step# ranges.
#ifndef OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_
#define OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/span.h"
#include "optrace/optrace.h"
#include "optrace/step_range_mark.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// The op name that liboptrace's step API records (optrace_step_begin,
// optrace::Step, optrace.step()): OPTRACE_STEP_NAME.
inline constexpr std::string_view kExplicitStepName = OPTRACE_STEP_NAME;
// PyTorch's profiler step range, as liboptrace_torch names it (the number
// is a counter sample of the range).
inline constexpr std::string_view kProfilerStepName = "ProfilerStep#";
// The counter whose parent is a range marked as a step (liboptrace_nvtx.so
// under --step-range); its value is the step's number.
inline constexpr std::string_view kStepRangeMarkName = OPTRACE_STEP_RANGE_MARK_NAME;
// The prefix of PyTorch's optimizer step ranges ("Optimizer.step#SGD.step").
inline constexpr std::string_view kOptimizerStepPrefix = "Optimizer.step#";

// What a span's name makes it to step detection.
// (kMarkedRange: a span under a kStepRangeMarkName counter, whatever its
// name.)
enum class StepMarkerKind : uint8_t { kNone, kExplicit, kMarkedRange, kProfiler, kOptimizer };

// The kind of a span named `name`, by its name alone (never
// kMarkedRange). Thread rules: pure.
StepMarkerKind StepMarkerKindOf(std::string_view name);

// The numbers that counters give steps: a span's op id -> the value of the
// counter under it.
struct StepNumbers {
  std::unordered_map<uint64_t, int64_t> profiler;  // ProfilerStep# counters
  std::unordered_map<uint64_t, int64_t> ranges;    // kStepRangeMarkName counters
};

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
// marked ranges, then profiler ones, then optimizer ones; other kinds are
// ignored. Explicit steps are numbered from 1 by start; marked ranges and
// profiler steps by their counters in `numbers` (from 1 where a marker
// has none); with optimizer ranges, only those named as the
// earliest one is (the first optimizer: a second optimizer or gradient
// accumulation does not split steps), the first step opens at
// `first_op_start_ns` and each range's end closes a step and opens the
// next. Thread rules: pure.
DetectedSteps DetectSteps(std::vector<StepMarker> markers, int64_t first_op_start_ns,
                          const StepNumbers& numbers);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STEP_DETECTION_H_
