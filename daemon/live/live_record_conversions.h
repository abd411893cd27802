// The one place where the daemon's model becomes a live record and back:
// the drain side (LivePublisher) turns halves, instants and spans into records,
// the serving side (TailMessageEncoder) turns a span record back into a
// Span. A field added to Span or LiveRecord is carried here, both ways.
#ifndef OPTRACE_DAEMON_LIVE_LIVE_RECORD_CONVERSIONS_H_
#define OPTRACE_DAEMON_LIVE_LIVE_RECORD_CONVERSIONS_H_

#include <cstdint>
#include <optional>

#include "live/live_record.h"
#include "model/span.h"

namespace optrace::daemon {

// Sets the type and every field of `*out` that the half carries;
// `duration_ns` is its op's duration when its LAUNCH was seen (a
// COMPLETE). Leaves the session's fields (session, pid, uid, label) as
// they are. HalfOp::raw_ts is not carried (tails show wall times).
void HalfToLiveRecord(const HalfOp& half, std::optional<uint64_t> duration_ns, LiveRecord* out);

// Sets the type and every field of `*out` that the instant carries;
// leaves the session's fields as they are.
void InstantToLiveRecord(const Instant& instant, LiveRecord* out);

// Sets the type and every field of `*out` that the span carries; leaves
// the session's fields as they are. SpanFromLiveRecord gives the span back.
void SpanToLiveRecord(const Span& span, LiveRecord* out);

// The span a record of type kSpan was made from (SpanToLiveRecord).
Span SpanFromLiveRecord(const LiveRecord& record);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_LIVE_RECORD_CONVERSIONS_H_
