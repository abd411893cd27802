#include "query/recorded_steps.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace optrace::daemon {
namespace {

// Step detection's preference among sources: higher wins.
int RankOf(v1::StepSource source) {
  switch (source) {
    case v1::STEP_SOURCE_EXPLICIT:
      return 4;
    case v1::STEP_SOURCE_RANGE:
      return 3;
    case v1::STEP_SOURCE_PROFILER:
      return 2;
    case v1::STEP_SOURCE_OPTIMIZER:
      return 1;
    default:
      return 0;
  }
}

v1::StepSource SourceOf(StepSpanKind kind) {
  static_assert(static_cast<int>(StepSpanKind::kExplicit) == v1::STEP_SOURCE_EXPLICIT);
  static_assert(static_cast<int>(StepSpanKind::kProfiler) == v1::STEP_SOURCE_PROFILER);
  return static_cast<v1::StepSource>(kind);
}

// The step a record stands for, its end saturated.
StepInterval IntervalOf(const StepRecord& record) {
  int64_t end = std::numeric_limits<int64_t>::max();
  if (record.duration_ns <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    int64_t sum = 0;
    if (!__builtin_add_overflow(record.start_ns, static_cast<int64_t>(record.duration_ns), &sum)) {
      end = sum;
    }
  }
  return {record.number, record.start_ns, end, 0};
}

}  // namespace

MergedSteps MergeRecordedSteps(DetectedSteps found, const SessionStepRecords& records) {
  MergedSteps merged;
  const bool any_explicit =
      std::any_of(records.records.begin(), records.records.end(),
                  [](const StepRecord& r) { return r.source == StepSpanKind::kExplicit; });
  const StepSpanKind kind = any_explicit ? StepSpanKind::kExplicit : StepSpanKind::kProfiler;
  const v1::StepSource recorded_source = SourceOf(kind);
  if (records.records.empty() || RankOf(found.source) > RankOf(recorded_source)) {
    merged.trimmed.assign(found.steps.size(), false);
    merged.detected = std::move(found);
    return merged;
  }
  if (RankOf(found.source) < RankOf(recorded_source)) found.steps.clear();
  merged.detected.source = recorded_source;
  merged.folded = records.folded;
  std::vector<StepInterval>& steps = merged.detected.steps;
  steps.reserve(found.steps.size() + records.records.size());
  size_t next_found = 0;
  for (const StepRecord& record : records.records) {
    if (record.source != kind) continue;
    while (next_found < found.steps.size() && found.steps[next_found].start_ns < record.start_ns) {
      steps.push_back(found.steps[next_found++]);
      merged.trimmed.push_back(false);
    }
    if (next_found < found.steps.size() && found.steps[next_found].start_ns == record.start_ns) {
      steps.push_back(found.steps[next_found++]);
      steps.back().number = record.number;
      merged.trimmed.push_back(false);
    } else {
      steps.push_back(IntervalOf(record));
      merged.trimmed.push_back(true);
    }
  }
  for (; next_found < found.steps.size(); ++next_found) {
    steps.push_back(found.steps[next_found]);
    merged.trimmed.push_back(false);
  }
  return merged;
}

}  // namespace optrace::daemon
