// The JSON of GetTimeline for `optrace ui`'s timeline (assets/views/
// timeline.js draws it).
#ifndef OPTRACE_CLI_UI_TIMELINE_JSON_H_
#define OPTRACE_CLI_UI_TIMELINE_JSON_H_

#include <nlohmann/json.hpp>

#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// {"session_start_unix_ns", "session_end_unix_ns", "start_unix_ns",
// "end_unix_ns", "width", "spans", "min_listed_ns", "spans_left_out",
// "strings_left_out", "span_fields": ["op_id", "parent_op_id", "name",
// "tag", "source_location", "start_unix_ns", "duration_ns", "self_ns",
// "depth", "device_duration_ns"], "bucket_fields": ["pixel", "depth",
// "count", "busy_ns", "name"], "strings": [...], "lanes": [{"device":
// {...as ToJson(Device)}, "thread", "max_depth", "spans": [[...], ...],
// "buckets": [[...], ...]}, ...]}. Spans and buckets are arrays in the
// order of span_fields and bucket_fields (half the bytes of objects);
// name, tag and source_location are indexes into strings;
// device_duration_ns is null when not measured.
nlohmann::json ToJson(const v1::GetTimelineResponse& timeline);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_TIMELINE_JSON_H_
