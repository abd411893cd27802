// GetTimeline: a session's stored spans over a time range, laid out for a
// timeline of a given width (TimelineSummary does the layout).
#ifndef OPTRACE_DAEMON_QUERY_TIMELINE_QUERY_H_
#define OPTRACE_DAEMON_QUERY_TIMELINE_QUERY_H_

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "query/timeline_summary.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// The widest timeline one request may ask for, in pixels.
inline constexpr uint32_t kMaxTimelineWidth = 8192;
// The most bytes of names, tags and source locations one answer holds.
inline constexpr size_t kMaxTimelineStringBytes = 512 * 1024;

// Fills `response` with the timeline of `request.session_id()` over
// [start_unix_ns, end_unix_ns) (the session's whole span of time for 0
// and 0: from its first span's start to the latest end of its spans),
// `width` pixels wide, within `bounds` (TimelineSummary's rules) and
// kMaxTimelineStringBytes (strings past it are given as index 0 and
// counted in strings_left_out). Every
// span that overlaps the range is counted, those that started before it
// included (ForEachSpanOverlapping). All of it reads one snapshot.
// Errors (kInvalidArgument, naming the field): width 0 or above
// kMaxTimelineWidth; a range that CheckTimeRange refuses. The reader's.
// REQUIRES: `reader` belongs to the calling thread and has no snapshot
// open. Whether the session exists and the caller may see it is checked
// by the service before.
Status GetTimeline(SpanReader& reader, const v1::GetTimelineRequest& request,
                   const TimelineBounds& bounds, v1::GetTimelineResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_TIMELINE_QUERY_H_
