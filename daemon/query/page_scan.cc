#include "query/page_scan.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "query/smallest_spans.h"

namespace optrace::daemon {
namespace {

// The first window's width: at a million ops per second, about one default
// page of spans.
constexpr uint64_t kFirstWindowNs = 1'000'000;
// The most a window grows over the one before.
constexpr uint64_t kMaxGrowth = 1024;

// min(hi, start + width - 1) without overflow. REQUIRES: start <= hi, width >= 1.
int64_t WindowEnd(int64_t start, uint64_t width, int64_t hi) {
  // Two's complement: the unsigned difference of two ordered int64s is
  // their exact distance.
  const uint64_t room = static_cast<uint64_t>(hi) - static_cast<uint64_t>(start);
  if (room <= width - 1) return hi;
  return static_cast<int64_t>(static_cast<uint64_t>(start) + (width - 1));
}

// How much wider the next window is: enough for the spans still missing
// at the last window's rate of matches, with a margin, but at least twice
// (so that the scan ends within ~64 windows) and at most kMaxGrowth times.
uint64_t GrowthFactor(uint64_t missing, uint64_t matched_in_last_window) {
  if (matched_in_last_window == 0) return kMaxGrowth / 64;
  const uint64_t factor = missing * 3 / 2 / matched_in_last_window + 1;
  return std::clamp<uint64_t>(factor, 2, kMaxGrowth);
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() / b ? std::numeric_limits<uint64_t>::max()
                                                      : a * b;
}

}  // namespace

Result<std::vector<Span>> ScanPage(SpanReader& reader, SessionId session, SpanFilter& filter,
                                   const std::optional<QueryCursor>& cursor, size_t count) {
  int64_t window_lo = filter.min_start_ns();
  if (cursor) window_lo = std::max(window_lo, cursor->start_ns);
  const int64_t hi = filter.max_start_ns();

  const SpanReader::ScratchScope scratch(reader);  // one set of page buffers for every window
  SmallestSpans best(count);
  // Spans with exactly the cursor's (start, op id): the first
  // cursor->sent_at_key of them (in SpanOrderLess order) were sent already.
  // They all start at the first window's start, so they are all known after
  // the first window.
  std::vector<Span> at_cursor;
  uint64_t stored_in_window = 0;   // spans the reader returned, matching or not
  uint64_t matched_in_window = 0;  // of which passed the filter
  const auto visit = [&](const Span& span) {
    ++stored_in_window;
    if (!filter.Matches(span)) return true;
    // The reader returns nothing before window_lo >= cursor->start_ns.
    if (cursor && span.start_ns == cursor->start_ns && span.op_id <= cursor->op_id) {
      if (span.op_id == cursor->op_id) at_cursor.push_back(span);
      return true;
    }
    ++matched_in_window;
    best.Offer(span);
    return true;
  };

  uint64_t width = kFirstWindowNs;
  bool probe = true;
  while (window_lo <= hi) {
    int64_t window_start = window_lo;
    if (probe) {
      // Where the next stored span at or after window_lo starts: the window
      // begins there, so that a gap in the session costs one query.
      std::optional<int64_t> next_start;
      Status probed = reader.ForEachSpan(session, window_lo, hi, [&](const Span& span) {
        next_start = span.start_ns;
        return false;
      });
      if (!probed.ok()) return probed;
      if (!next_start) break;
      window_start = *next_start;
    }
    const int64_t window_hi = WindowEnd(window_start, width, hi);
    stored_in_window = 0;
    matched_in_window = 0;
    Status scanned = reader.ForEachSpan(session, window_lo, window_hi, visit);
    if (!scanned.ok()) return scanned;
    if (!at_cursor.empty()) {
      std::sort(at_cursor.begin(), at_cursor.end(), SpanOrderLess);
      const size_t sent =
          static_cast<size_t>(std::min<uint64_t>(cursor->sent_at_key, at_cursor.size()));
      for (size_t i = sent; i < at_cursor.size(); ++i) best.Offer(at_cursor[i]);
      at_cursor.clear();
    }
    if (best.full() || window_hi >= hi) break;
    window_lo = window_hi + 1;
    // An empty window may be followed by a gap: find the next span first.
    probe = stored_in_window == 0;
    width = SaturatingMul(width, GrowthFactor(count - best.size(), matched_in_window));
  }
  return best.TakeSorted();
}

}  // namespace optrace::daemon
