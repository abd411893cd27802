#include "query/step_detection.h"

#include <algorithm>

namespace optrace::daemon {
namespace {

int64_t EndOf(const StepMarker& marker) {
  return marker.start_ns + static_cast<int64_t>(marker.duration_ns);
}

// The markers of `kind`, by start (ties by op id).
std::vector<StepMarker> MarkersOf(const std::vector<StepMarker>& markers, StepMarkerKind kind) {
  std::vector<StepMarker> of_kind;
  for (const StepMarker& marker : markers) {
    if (marker.kind == kind) of_kind.push_back(marker);
  }
  std::sort(of_kind.begin(), of_kind.end(), [](const StepMarker& a, const StepMarker& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.op_id < b.op_id;
  });
  return of_kind;
}

std::vector<StepInterval> StepsOfRanges(const std::vector<StepMarker>& ranges,
                                        const std::unordered_map<uint64_t, int64_t>* numbers) {
  std::vector<StepInterval> steps;
  steps.reserve(ranges.size());
  for (const StepMarker& range : ranges) {
    uint64_t number = steps.size() + 1;
    if (numbers != nullptr) {
      const auto it = numbers->find(range.op_id);
      if (it != numbers->end() && it->second >= 0) number = static_cast<uint64_t>(it->second);
    }
    steps.push_back({number, range.start_ns, EndOf(range), range.op_id});
  }
  return steps;
}

std::vector<StepInterval> StepsBetweenOptimizerSteps(std::vector<StepMarker> ranges,
                                                     int64_t first_op_start_ns) {
  const StringId first_optimizer = ranges.front().name;
  std::erase_if(ranges, [&](const StepMarker& r) { return r.name != first_optimizer; });
  std::sort(ranges.begin(), ranges.end(),
            [](const StepMarker& a, const StepMarker& b) { return EndOf(a) < EndOf(b); });
  std::vector<StepInterval> steps;
  int64_t start = std::min(first_op_start_ns, ranges.front().start_ns);
  for (const StepMarker& range : ranges) {
    steps.push_back({steps.size() + 1, start, EndOf(range), 0});
    start = EndOf(range);
  }
  return steps;
}

}  // namespace

StepMarkerKind StepMarkerKindOf(std::string_view name) {
  if (name == kExplicitStepName) return StepMarkerKind::kExplicit;
  if (name == kProfilerStepName) return StepMarkerKind::kProfiler;
  if (name.starts_with(kOptimizerStepPrefix)) return StepMarkerKind::kOptimizer;
  return StepMarkerKind::kNone;
}

DetectedSteps DetectSteps(std::vector<StepMarker> markers, int64_t first_op_start_ns,
                          const StepNumbers& numbers) {
  DetectedSteps detected;
  if (std::vector<StepMarker> ranges = MarkersOf(markers, StepMarkerKind::kExplicit);
      !ranges.empty()) {
    detected.source = v1::STEP_SOURCE_EXPLICIT;
    detected.steps = StepsOfRanges(ranges, nullptr);
  } else if (ranges = MarkersOf(markers, StepMarkerKind::kMarkedRange); !ranges.empty()) {
    detected.source = v1::STEP_SOURCE_RANGE;
    detected.steps = StepsOfRanges(ranges, &numbers.ranges);
  } else if (ranges = MarkersOf(markers, StepMarkerKind::kProfiler); !ranges.empty()) {
    detected.source = v1::STEP_SOURCE_PROFILER;
    detected.steps = StepsOfRanges(ranges, &numbers.profiler);
  } else if (ranges = MarkersOf(markers, StepMarkerKind::kOptimizer); !ranges.empty()) {
    detected.source = v1::STEP_SOURCE_OPTIMIZER;
    detected.steps = StepsBetweenOptimizerSteps(std::move(ranges), first_op_start_ns);
  }
  return detected;
}

}  // namespace optrace::daemon
