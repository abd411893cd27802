// GetSteps and ExplainStep: a session's steps found in its stored spans,
// judged, and the slow ones explained.
#ifndef OPTRACE_DAEMON_QUERY_SESSION_STEPS_H_
#define OPTRACE_DAEMON_QUERY_SESSION_STEPS_H_

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_reader.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// The most OK spans one steps query reads (two passes; each step keeps 16
// bytes per op it ran, at most one entry per span): a larger session is
// refused.
inline constexpr size_t kMaxStepSpans = 4'000'000;
// The most steps one GetSteps response lists (the last ones).
inline constexpr uint32_t kMaxStepsListed = 100'000;
// How many neighbouring steps make ExplainStep's default baseline.
inline constexpr size_t kBaselineNeighbours = 10;

// Fills `response` with the steps of `request.session_id()`'s stored OK
// spans (DetectSteps) and its step records (MergeRecordedSteps: a recorded
// step whose spans the rolling window trimmed is listed with `trimmed`,
// ops 0 and no top op; steps_folded counts the records the store's bound
// dropped), each with the OK spans that began in it (counted by
// start time: an op belongs to the latest step begun before it that has
// not ended; the step's own span is not an op of it), its top op by self
// time and its verdict (JudgeSteps, over every step, trimmed ones
// included); the percentiles are of the non-warm-up steps. Errors: kInvalidArgument for bad rules
// or a limit past kMaxStepsListed; kResourceExhausted beyond kMaxStepSpans spans; the reader's.
// Thread rules: `reader` is used on the calling thread only.
Status GetSteps(SpanReader& reader, const v1::GetStepsRequest& request,
                v1::GetStepsResponse* response);

// Fills `response` with why step `request.step()` took longer than its
// baseline: `baseline_step` when it has one, else the up to
// kBaselineNeighbours nearest steps that are neither slow nor warm-up;
// the baseline's duration is their median, and ops are ranked by
// RankExtraTime. Trimmed steps are never neighbours. Errors: kNotFound
// when the session has no steps, no step of that number or no step to
// compare with; kFailedPrecondition when the step (or baseline_step) is
// trimmed: its spans are gone; GetSteps's.
Status ExplainStep(SpanReader& reader, const v1::ExplainStepRequest& request,
                   v1::ExplainStepResponse* response);

// The start times, inclusive, of the spans that began in one step; none
// when max_start_ns < min_start_ns.
struct StepStartRange {
  int64_t min_start_ns = 0;
  int64_t max_start_ns = -1;
};

// Where the spans of step `number` of `session` began (GetSteps's numbers):
// from the step's start to just before its end or the next step's start,
// whichever comes first, as GetSteps counts a step's ops (the step's own
// span begins there too). REQUIRES: the caller holds a snapshot of
// `reader` (SpanReader::Snapshot); `strings` reads through it. Errors:
// kNotFound when the session has no steps or no step of that number;
// kFailedPrecondition when that step is trimmed; kResourceExhausted
// beyond kMaxStepSpans spans; the reader's. Thread rules: `reader` and
// `strings` are used on the calling thread only.
Result<StepStartRange> FindStepStartRange(SpanReader& reader, SessionId session, uint64_t number,
                                          StringCache& strings);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_SESSION_STEPS_H_
