#include "query/timeline_query.h"

#include <algorithm>
#include <limits>
#include <string>

#include "model/flat_id_map.h"
#include "storage/span_time_range.h"
#include "wire/proto_convert.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

Status CheckRequest(const v1::GetTimelineRequest& request) {
  if (request.width() == 0 || request.width() > kMaxTimelineWidth) {
    return Status::InvalidArgument("width " + std::to_string(request.width()) +
                                   " is not between 1 and " + std::to_string(kMaxTimelineWidth) +
                                   " pixels");
  }
  return CheckTimeRange(request.start_unix_ns(), request.end_unix_ns());
}

// The latest end of the spans of `session` that start in `starts` (the
// spans that can end last start at most `longest` before the last start).
Result<int64_t> LatestEnd(SpanReader& reader, SessionId session, const SpanStartRange& starts,
                          uint64_t longest) {
  int64_t latest = starts.last_start_ns;
  Status read = reader.ForEachSpanPage(
      session, ClampToNs(static_cast<__int128>(starts.last_start_ns) - longest),
      starts.last_start_ns,
      [&](std::span<const Span> spans) {
        for (const Span& span : spans) {
          latest = std::max(latest, SpanEndNs(span));
        }
        return true;
      },
      kTimeRangeColumns);
  if (!read.ok()) return read;
  return latest;
}

// The response's string table: each dictionary id used gets an index,
// until the texts reach kMaxTimelineStringBytes (then index 0, counted).
class StringTable {
 public:
  StringTable(StringCache& strings, v1::GetTimelineResponse* response)
      : strings_(strings), response_(response) {
    response_->add_strings();  // index 0: ""
  }

  uint32_t IndexOf(StringId id) {
    if (id == 0) return 0;
    if (const uint32_t* index = index_.Find(id)) return *index;
    const std::string& text = strings_.Get(id);
    if (bytes_ + text.size() > kMaxTimelineStringBytes) {
      response_->set_strings_left_out(response_->strings_left_out() + 1);
      return 0;
    }
    bytes_ += text.size();
    const auto index = static_cast<uint32_t>(response_->strings_size());
    response_->add_strings(text);
    index_.Insert(id, index);
    return index;
  }

 private:
  StringCache& strings_;
  v1::GetTimelineResponse* response_;
  FlatIdMap<uint32_t> index_;
  size_t bytes_ = 0;
};

void ToProto(const TimelineLaneLayout& lane, StringTable& strings, v1::TimelineLane* out) {
  v1::Device* device = out->mutable_device();
  device->set_target(TargetToProto(lane.key.target));
  device->set_ordinal(lane.key.device);
  device->set_stream(lane.key.stream);
  out->set_thread(lane.key.thread);
  out->set_max_depth(lane.max_depth);
  out->mutable_spans()->Reserve(static_cast<int>(lane.spans.size()));
  for (const TimelineListedSpan& listed : lane.spans) {
    const Span& span = listed.span;
    v1::TimelineSpan* s = out->add_spans();
    s->set_op_id(span.op_id);
    s->set_parent_op_id(span.parent_op_id);
    s->set_name(strings.IndexOf(span.name));
    s->set_tag(strings.IndexOf(span.tag));
    s->set_source_location(strings.IndexOf(span.srcloc));
    s->set_start_unix_ns(span.start_ns);
    s->set_duration_ns(span.duration_ns);
    s->set_self_ns(SelfNs(span));
    s->set_depth(listed.depth);
    if (const auto device_ns = KnownDeviceDuration(span)) s->set_device_duration_ns(*device_ns);
  }
  for (const TimelineBucketSum& sum : lane.buckets) {
    v1::TimelineBucket* b = out->add_buckets();
    b->set_pixel(sum.pixel);
    b->set_depth(sum.depth);
    b->set_count(sum.count);
    b->set_busy_ns(sum.busy_ns);
    b->set_name(strings.IndexOf(sum.name));
  }
}

}  // namespace

Status GetTimeline(SpanReader& reader, const v1::GetTimelineRequest& request,
                   const TimelineBounds& bounds, v1::GetTimelineResponse* response) {
  if (Status st = CheckRequest(request); !st.ok()) return st;
  const SessionId session = request.session_id();
  response->Clear();
  response->set_width(request.width());
  StringCache strings(reader);
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  SpanReader::ScratchScope scratch(reader);

  Result<std::optional<SpanStartRange>> stored = reader.StartRange(session);
  if (!stored.ok()) return stored.status();
  const std::optional<SpanStartRange> starts = stored.value();
  Result<uint64_t> longest = LongestDuration(reader, session);
  if (!longest.ok()) return longest.status();
  if (starts) {
    Result<int64_t> end = LatestEnd(reader, session, *starts, longest.value());
    if (!end.ok()) return end.status();
    response->set_session_start_unix_ns(starts->first_start_ns);
    // A range holds at least a nanosecond, even for one span of none.
    response->set_session_end_unix_ns(
        std::max(end.value(), ClampToNs(static_cast<__int128>(starts->first_start_ns) + 1)));
  }
  const bool whole = request.start_unix_ns() == 0 && request.end_unix_ns() == 0;
  const int64_t start = whole ? response->session_start_unix_ns() : request.start_unix_ns();
  const int64_t end = whole ? response->session_end_unix_ns() : request.end_unix_ns();
  response->set_start_unix_ns(start);
  response->set_end_unix_ns(end);
  if (!starts || start >= end) return Status::Ok();

  TimelineSummary summary(start, end, request.width(), bounds);
  Status read = ForEachSpanOverlapping(reader, session, {.start_ns = start, .end_ns = end},
                                       longest.value(), [&](const Span& span) {
                                         summary.Add(span);
                                         return true;
                                       });
  if (!read.ok()) return read;
  const TimelineLayout layout = summary.Finish();
  response->set_spans(layout.spans);
  response->set_min_listed_ns(layout.min_listed_ns);
  response->set_spans_left_out(layout.spans_left_out);
  StringTable table(strings, response);
  for (const TimelineLaneLayout& lane : layout.lanes) ToProto(lane, table, response->add_lanes());
  return strings.status();
}

}  // namespace optrace::daemon
