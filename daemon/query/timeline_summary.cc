#include "query/timeline_summary.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

uint64_t AddSaturating(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

// Listing order on a lane: by start, longer first (a parent before the
// child that starts with it), then op id, so that the order is total.
bool ListedBefore(const Span& a, const Span& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.duration_ns != b.duration_ns) return a.duration_ns > b.duration_ns;
  return a.op_id < b.op_id;
}

// The ends of the listed spans running at some time, innermost last: the
// sweep that gives depths.
class NestingSweep {
 public:
  // The depth of something starting at `start_ns`: the spans still running.
  uint32_t DepthAt(int64_t start_ns) {
    while (!ends_.empty() && ends_.back() <= start_ns) ends_.pop_back();
    return static_cast<uint32_t>(ends_.size());
  }
  // A span that runs until `end_ns` starts now (after DepthAt of its start).
  void Open(int64_t end_ns) { ends_.push_back(end_ns); }

 private:
  std::vector<int64_t> ends_;
};

}  // namespace

TimelineLaneKey LaneOf(const Span& span) {
  const auto target = static_cast<abi::TargetKind>(span.target);
  if (target == abi::TargetKind::kNone || target == abi::TargetKind::kCpu) {
    return {.target = span.target,
            .thread = span.launch_tid != 0 ? span.launch_tid : span.complete_tid};
  }
  return {.on_device = true, .target = span.target, .device = span.device, .stream = span.stream};
}

TimelineSummary::TimelineSummary(int64_t start_ns, int64_t end_ns, uint32_t width,
                                 TimelineBounds bounds)
    : start_ns_(start_ns), end_ns_(end_ns), width_(width), bounds_(bounds) {
  const uint64_t range = static_cast<uint64_t>(end_ns_) - static_cast<uint64_t>(start_ns_);
  listing_threshold_ns_ = std::max<uint64_t>(1, range / width_ + (range % width_ != 0));
}

uint32_t TimelineSummary::PixelOf(int64_t ns) const {
  if (ns <= start_ns_) return 0;
  if (ns >= end_ns_) return width_ - 1;
  // Exact in 128 bits: offset * width / range, for any range of int64.
  const auto range = static_cast<unsigned __int128>(static_cast<uint64_t>(end_ns_) -
                                                    static_cast<uint64_t>(start_ns_));
  const auto offset =
      static_cast<unsigned __int128>(static_cast<uint64_t>(ns) - static_cast<uint64_t>(start_ns_));
  return static_cast<uint32_t>(offset * width_ / range);
}

TimelineSummary::LaneState* TimelineSummary::LaneFor(const Span& span) {
  const TimelineLaneKey key = LaneOf(span);
  auto found = lanes_.find(key);
  if (found != lanes_.end()) return &found->second;
  if (lanes_.size() == bounds_.max_lanes) return nullptr;
  LaneState& lane = lanes_[key];
  lane.key = key;
  return &lane;
}

void TimelineSummary::Add(const Span& span) {
  if (!SpanOverlaps(span, {.start_ns = start_ns_, .end_ns = end_ns_})) return;
  ++spans_;
  LaneState* lane = LaneFor(span);
  if (lane == nullptr) {
    ++spans_left_out_;
    return;
  }
  if (!KnownDuration(span).has_value() || span.duration_ns < listing_threshold_ns_) {
    AddToBucket(*lane, span);
    return;
  }
  lane->listed.push_back(span);
  if (++listed_ > 2 * bounds_.max_spans) DemoteNarrowest();
}

void TimelineSummary::AddToBucket(LaneState& lane, const Span& span) {
  const uint32_t pixel = PixelOf(span.start_ns);
  uint32_t* index = lane.bucket_of_pixel.Find(pixel);
  if (index == nullptr) {
    if (buckets_ == bounds_.max_buckets) {
      ++spans_left_out_;
      return;
    }
    ++buckets_;
    index = &lane.bucket_of_pixel.Insert(pixel, static_cast<uint32_t>(lane.buckets.size()));
    lane.buckets.push_back({.pixel = pixel, .first_start_ns = span.start_ns});
  }
  BucketState& bucket = lane.buckets[*index];
  const uint64_t duration = KnownDuration(span).value_or(0);
  ++bucket.count;
  bucket.busy_ns = AddSaturating(bucket.busy_ns, duration);
  bucket.first_start_ns = std::min(bucket.first_start_ns, span.start_ns);
  NameShare* share = std::find_if(bucket.names, bucket.names + bucket.names_used,
                                  [&](const NameShare& s) { return s.name == span.name; });
  if (share == bucket.names + bucket.names_used) {
    if (bucket.names_used == kNamesPerBucket) return;
    ++bucket.names_used;
    share->name = span.name;
  }
  share->busy_ns = AddSaturating(share->busy_ns, duration);
  ++share->count;
}

void TimelineSummary::DemoteNarrowest() {
  if (listed_ <= bounds_.max_spans) return;
  std::vector<uint64_t> durations;
  durations.reserve(listed_);
  for (const auto& [key, lane] : lanes_) {
    for (const Span& span : lane.listed) durations.push_back(span.duration_ns);
  }
  // The max_spans-th widest duration; if spans tied with it would pass the
  // bound, the threshold goes just above it.
  const size_t keep = bounds_.max_spans;
  uint64_t threshold = 0;
  if (keep > 0) {
    std::nth_element(durations.begin(), durations.begin() + static_cast<ptrdiff_t>(keep - 1),
                     durations.end(), std::greater<>());
    threshold = durations[keep - 1];
    const auto at_least = static_cast<size_t>(std::count_if(
        durations.begin(), durations.end(), [&](uint64_t d) { return d >= threshold; }));
    if (at_least > keep) ++threshold;
  } else {
    threshold = std::numeric_limits<uint64_t>::max();
  }
  listing_threshold_ns_ = std::max(listing_threshold_ns_, threshold);
  listed_ = 0;
  for (auto& [key, lane] : lanes_) {
    std::vector<Span> kept;
    for (const Span& span : lane.listed) {
      if (span.duration_ns >= listing_threshold_ns_) {
        kept.push_back(span);
      } else {
        AddToBucket(lane, span);
      }
    }
    listed_ += kept.size();
    lane.listed = std::move(kept);
  }
}

TimelineLaneLayout TimelineSummary::LayOut(LaneState& lane) const {
  TimelineLaneLayout out;
  out.key = lane.key;
  std::sort(lane.listed.begin(), lane.listed.end(), ListedBefore);
  std::sort(lane.buckets.begin(), lane.buckets.end(),
            [](const BucketState& a, const BucketState& b) {
              return a.first_start_ns < b.first_start_ns;
            });
  // One sweep in time order over both: a bucket whose first span starts
  // with a listed span is drawn below it.
  NestingSweep sweep;
  size_t b = 0;
  auto place_buckets_before = [&](int64_t limit_ns, bool inclusive) {
    for (; b < lane.buckets.size(); ++b) {
      const BucketState& bucket = lane.buckets[b];
      if (inclusive ? bucket.first_start_ns > limit_ns : bucket.first_start_ns >= limit_ns) return;
      const NameShare* top = std::max_element(
          bucket.names, bucket.names + bucket.names_used,
          [](const NameShare& x, const NameShare& y) {
            return x.busy_ns != y.busy_ns ? x.busy_ns < y.busy_ns : x.count < y.count;
          });
      TimelineBucketSum sum{.pixel = bucket.pixel,
                            .depth = sweep.DepthAt(bucket.first_start_ns),
                            .count = bucket.count,
                            .busy_ns = bucket.busy_ns,
                            .name = bucket.names_used > 0 ? top->name : StringId{0}};
      out.max_depth = std::max(out.max_depth, sum.depth);
      out.buckets.push_back(sum);
    }
  };
  for (const Span& span : lane.listed) {
    place_buckets_before(span.start_ns, false);
    const uint32_t depth = sweep.DepthAt(span.start_ns);
    sweep.Open(SpanEndNs(span));
    out.max_depth = std::max(out.max_depth, depth);
    out.spans.push_back({span, depth});
  }
  place_buckets_before(std::numeric_limits<int64_t>::max(), true);
  std::sort(
      out.buckets.begin(), out.buckets.end(),
      [](const TimelineBucketSum& x, const TimelineBucketSum& y) { return x.pixel < y.pixel; });
  return out;
}

TimelineLayout TimelineSummary::Finish() {
  DemoteNarrowest();
  TimelineLayout layout;
  layout.spans = spans_;
  layout.spans_left_out = spans_left_out_;
  for (auto& [key, lane] : lanes_) {
    layout.lanes.push_back(LayOut(lane));
    for (const TimelineListedSpan& listed : layout.lanes.back().spans) {
      if (layout.min_listed_ns == 0 || listed.span.duration_ns < layout.min_listed_ns) {
        layout.min_listed_ns = listed.span.duration_ns;
      }
    }
  }
  lanes_.clear();
  listed_ = buckets_ = 0;
  spans_ = spans_left_out_ = 0;
  return layout;
}

}  // namespace optrace::daemon
