#include "ui/timeline_json.h"

#include <string>
#include <vector>

#include "json_convert.h"

namespace optrace::cli {
namespace {

using nlohmann::json;

const std::vector<std::string> kSpanFields = {
    "op_id",         "parent_op_id", "name",    "tag",   "source_location",
    "start_unix_ns", "duration_ns",  "self_ns", "depth", "device_duration_ns"};
const std::vector<std::string> kBucketFields = {"pixel", "depth", "count", "busy_ns", "name"};

// One span as an array in kSpanFields' order: a tenth of a second's
// 20,000 spans are 1.8 MB of JSON this way, twice that as objects.
json ToJson(const v1::TimelineSpan& span) {
  return json::array(
      {span.op_id(), span.parent_op_id(), span.name(), span.tag(), span.source_location(),
       span.start_unix_ns(), span.duration_ns(), span.self_ns(), span.depth(),
       span.has_device_duration_ns() ? json(span.device_duration_ns()) : json(nullptr)});
}

json ToJson(const v1::TimelineLane& lane) {
  json spans = json::array();
  for (const v1::TimelineSpan& span : lane.spans()) spans.push_back(ToJson(span));
  json buckets = json::array();
  for (const v1::TimelineBucket& b : lane.buckets()) {
    buckets.push_back(json::array({b.pixel(), b.depth(), b.count(), b.busy_ns(), b.name()}));
  }
  return {{"device", cli::ToJson(lane.device())},
          {"thread", lane.thread()},
          {"max_depth", lane.max_depth()},
          {"spans", std::move(spans)},
          {"buckets", std::move(buckets)}};
}

}  // namespace

json ToJson(const v1::GetTimelineResponse& timeline) {
  json lanes = json::array();
  for (const v1::TimelineLane& lane : timeline.lanes()) lanes.push_back(ToJson(lane));
  return {
      {"session_start_unix_ns", timeline.session_start_unix_ns()},
      {"session_end_unix_ns", timeline.session_end_unix_ns()},
      {"start_unix_ns", timeline.start_unix_ns()},
      {"end_unix_ns", timeline.end_unix_ns()},
      {"width", timeline.width()},
      {"spans", timeline.spans()},
      {"min_listed_ns", timeline.min_listed_ns()},
      {"spans_left_out", timeline.spans_left_out()},
      {"strings_left_out", timeline.strings_left_out()},
      {"span_fields", kSpanFields},
      {"bucket_fields", kBucketFields},
      {"strings", std::vector<std::string>(timeline.strings().begin(), timeline.strings().end())},
      {"lanes", std::move(lanes)}};
}

}  // namespace optrace::cli
