// TimelineSummary: lays out the spans of a time range for a timeline of a
// given width in pixels (GetTimeline): one lane per host thread and per
// device stream, the spans at least a pixel wide listed with their depth,
// the narrower ones summed per lane and pixel.
#ifndef OPTRACE_DAEMON_QUERY_TIMELINE_SUMMARY_H_
#define OPTRACE_DAEMON_QUERY_TIMELINE_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "model/flat_id_map.h"
#include "model/span.h"
#include "storage/span_time_range.h"

namespace optrace::daemon {

// Which lane a span is drawn on: a host thread (target CPU or none: the
// thread that launched it, else the one that completed it; device and
// stream 0) or a device stream (GPU and other targets; thread 0). Lanes
// order host threads first, by thread id, then devices by target,
// ordinal and stream.
struct TimelineLaneKey {
  bool on_device = false;
  uint8_t target = 0;  // abi::TargetKind
  uint16_t device = 0;
  uint32_t stream = 0;
  uint32_t thread = 0;

  auto operator<=>(const TimelineLaneKey&) const = default;
};

// The lane of `span`. Thread rules: pure.
TimelineLaneKey LaneOf(const Span& span);

// What one layout holds at most (docs/daemon.md, "Bounds on requests").
struct TimelineBounds {
  size_t max_spans = 20'000;    // listed spans; past it the widest are listed
  size_t max_buckets = 65'536;  // pixel summaries over all lanes
  size_t max_lanes = 256;
};

// A listed span and how deep it is nested on its lane.
struct TimelineListedSpan {
  Span span;
  uint32_t depth = 0;
};

// The spans narrower than the listing threshold that started in one pixel
// of a lane (spans that started before the range count in pixel 0).
struct TimelineBucketSum {
  uint32_t pixel = 0;
  uint32_t depth = 0;  // the listed spans of the lane running at the first of them
  uint64_t count = 0;
  uint64_t busy_ns = 0;  // their known durations summed (saturating)
  StringId name = 0;     // the name with the most busy time (ties: the most spans, then seen first)
};

struct TimelineLaneLayout {
  TimelineLaneKey key;
  std::vector<TimelineListedSpan> spans;   // by start, longer first, then op id
  std::vector<TimelineBucketSum> buckets;  // by pixel
  uint32_t max_depth = 0;
};

struct TimelineLayout {
  std::vector<TimelineLaneLayout> lanes;  // in TimelineLaneKey order
  uint64_t spans = 0;                     // spans in the range, listed and summed
  uint64_t min_listed_ns = 0;             // the narrowest listed span (0: none listed)
  uint64_t spans_left_out = 0;            // past max_lanes or max_buckets
};

// Collects spans one at a time and lays them out. A span is in the range
// [start_ns, end_ns) when it overlaps it (a span of no known duration:
// when it starts in it); spans outside are ignored. A span is listed when
// it is OK and lasts at least one pixel, ceil((end_ns - start_ns) /
// width) ns; the others are summed in the bucket of their lane and start
// pixel. When more spans qualify than bounds.max_spans, the threshold
// rises to the duration of the max_spans-th widest (or just above it,
// when ties would pass the bound): the rest are summed as narrow ones.
// Memory: at most 2 x max_spans spans held, plus the buckets and lanes.
// Depth: spans sorted by start (longer first) on each lane; a span's
// depth is the number of listed spans still running when it starts
// (partially overlapping spans stack as if nested).
// REQUIRES: start_ns < end_ns, width >= 1. Thread rules: one thread.
class TimelineSummary {
 public:
  TimelineSummary(int64_t start_ns, int64_t end_ns, uint32_t width, TimelineBounds bounds = {});
  TimelineSummary(const TimelineSummary&) = delete;
  TimelineSummary& operator=(const TimelineSummary&) = delete;

  // Counts `span` in the layout when it is in the range.
  void Add(const Span& span);

  // The layout of every span added. Leaves the summary empty.
  TimelineLayout Finish();

  // The pixel that time `ns` falls in, 0 for times before the range and
  // width - 1 for times after it.
  uint32_t PixelOf(int64_t ns) const;

 private:
  // A bucket as it fills: besides the sums, the busy time of its first
  // kNamesPerBucket names (a later name's time counts in busy_ns only).
  static constexpr size_t kNamesPerBucket = 8;
  struct NameShare {
    StringId name = 0;
    uint64_t busy_ns = 0;
    uint64_t count = 0;
  };
  struct BucketState {
    uint32_t pixel = 0;
    int64_t first_start_ns = 0;
    uint64_t count = 0;
    uint64_t busy_ns = 0;
    uint32_t names_used = 0;
    NameShare names[kNamesPerBucket] = {};
  };
  struct LaneState {
    TimelineLaneKey key;
    std::vector<Span> listed;
    FlatIdMap<uint32_t> bucket_of_pixel;  // pixel -> index in buckets
    std::vector<BucketState> buckets;
  };

  // The lane of `span`, nullptr when it would pass max_lanes.
  LaneState* LaneFor(const Span& span);
  // Sums `span` in its pixel's bucket of `lane` (counted as left out past
  // max_buckets).
  void AddToBucket(LaneState& lane, const Span& span);
  // Raises the listing threshold so that at most max_spans spans stay
  // listed, and sums the others in buckets.
  void DemoteNarrowest();
  // Lays out one lane: depths of its listed spans and buckets.
  TimelineLaneLayout LayOut(LaneState& lane) const;

  const int64_t start_ns_;
  const int64_t end_ns_;
  const uint32_t width_;
  const TimelineBounds bounds_;
  uint64_t listing_threshold_ns_;
  std::map<TimelineLaneKey, LaneState> lanes_;
  size_t listed_ = 0;
  size_t buckets_ = 0;
  uint64_t spans_ = 0;
  uint64_t spans_left_out_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_TIMELINE_SUMMARY_H_
