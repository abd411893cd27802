// A session's steps from both places they are kept: those step detection
// finds in its stored spans, and the step records the store writes as
// steps commit (storage/step_records.h), which outlive the rolling window.
// A recorded step whose span is gone is listed as trimmed: its number,
// start and duration are known, its ops are not.
#ifndef OPTRACE_DAEMON_QUERY_RECORDED_STEPS_H_
#define OPTRACE_DAEMON_QUERY_RECORDED_STEPS_H_

#include <cstdint>
#include <vector>

#include "query/step_detection.h"
#include "storage/step_records.h"

namespace optrace::daemon {

// The steps of a session, by start, and which are trimmed.
struct MergedSteps {
  DetectedSteps detected;
  std::vector<bool> trimmed;  // one per step: listed from its record, its spans gone
  uint64_t folded = 0;        // records the store's bound dropped (when records are used)
};

// Merges `found` (DetectSteps over the stored spans) with the session's
// `records`. The records (of their best source: explicit over profiler)
// are used when their source ranks with step detection's choice (explicit,
// then marked ranges, then profiler, then optimizer) at least as high as
// `found`'s: when higher, every record is a trimmed step and `found` is
// dropped (its spans of the better kind are all gone); when the same, the
// two are merged by start: a found step with a record at its start takes
// the record's number (the store counts explicit steps from the session's
// first, trimmed ones included), a record without a found step is a
// trimmed step, a found step without a record stays as found. Thread
// rules: pure.
MergedSteps MergeRecordedSteps(DetectedSteps found, const SessionStepRecords& records);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_RECORDED_STEPS_H_
