// The spans of a session that overlap a time range: the range's checks,
// the overlap rule, and a read that finds every overlapping span without
// reading the whole session (GetTimeline, Export).
#ifndef OPTRACE_DAEMON_STORAGE_SPAN_TIME_RANGE_H_
#define OPTRACE_DAEMON_STORAGE_SPAN_TIME_RANGE_H_

#include <cstdint>

#include "common/status.h"
#include "model/span.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// A half-open range [start_ns, end_ns) of CLOCK_REALTIME nanoseconds.
// REQUIRES (for SpanOverlaps and ForEachSpanOverlapping): start_ns < end_ns.
struct SpanTimeRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// The columns SpanOverlaps reads: a pass that only counts spans in a
// range reads these.
inline constexpr span_page::ColumnSet kTimeRangeColumns =
    span_page::kStartNs | span_page::kDurationNs | span_page::kStatus;

// `ns` clamped to the range of int64_t. Thread rules: pure.
int64_t ClampToNs(__int128 ns);

// The span's end: its start plus its known duration (its start when it
// has none), clamped to int64_t (times are data read back from storage).
int64_t SpanEndNs(const Span& span);

// Checks a request's range fields [start_unix_ns, end_unix_ns): both 0
// (the whole session), or start >= 0 and end after start. Errors
// (kInvalidArgument, naming the field and its value): a negative start or
// end; only one of them set; end not after start. Thread rules: pure.
Status CheckTimeRange(int64_t start_unix_ns, int64_t end_unix_ns);

// Whether `span` overlaps `range`: a span of known duration when it starts
// before the range ends and ends after it starts (or starts at its
// start: a span of 0 ns), a span of none when it starts in it. Reads the
// columns of kTimeRangeColumns. Thread rules: pure.
bool SpanOverlaps(const Span& span, const SpanTimeRange& range);

// The longest OK duration of `session`, from its op_aggregates (every span
// it ever stored, so an upper bound on the known durations stored now).
// Errors: the reader's.
Result<uint64_t> LongestDuration(SpanReader& reader, SessionId session);

// Visits the spans of `session` that overlap `range`, in the reader's
// order (ForEachSpanPage's), until `visit` returns false. Reads only the
// pages that start from `longest` (LongestDuration) before the range to
// its end, and the fields of `columns` (kTimeRangeColumns always).
// REQUIRES: `visit` reads no pages of this reader itself. Errors: the
// reader's.
Status ForEachSpanOverlapping(SpanReader& reader, SessionId session, const SpanTimeRange& range,
                              uint64_t longest, const SpanReader::SpanVisitor& visit,
                              span_page::ColumnSet columns = span_page::kAllColumns);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SPAN_TIME_RANGE_H_
