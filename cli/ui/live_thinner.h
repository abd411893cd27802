// The live page's thinning: a Tail stream can bring 100k items a second,
// far more than a page can draw. The relay (live_relay.h) hands the page
// one batch per period (100 ms); a LiveThinner keeps the first
// `max_items` items of each period in arrival order and only counts the
// rest, so that what a page is sent, and what is held for it, is bounded
// whatever the rate. What the daemon itself skipped for a slow stream
// (its Lag items) is counted apart. Every item is counted once: received
// = forwarded + thinned (Lag items are not items).
#ifndef OPTRACE_CLI_UI_LIVE_THINNER_H_
#define OPTRACE_CLI_UI_LIVE_THINNER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// The stream's counts since it began.
struct LiveTotals {
  uint64_t received = 0;   // events and spans that came from the daemon
  uint64_t forwarded = 0;  // of them, those handed out in a batch
  uint64_t thinned = 0;    // of them, those only counted
  uint64_t skipped = 0;    // what the daemon skipped for this stream (Lag.skipped)
};

// One period's share: what the page is sent.
struct LiveBatch {
  std::vector<v1::TailResponse> items;  // events and spans, at most max_items, in arrival order
  uint64_t thinned = 0;                 // items of this period left out
  uint64_t skipped = 0;                 // the daemon's skips reported in this period
  LiveTotals totals;                    // as of the end of this period

  // Whether the period brought nothing at all.
  bool empty() const { return items.empty() && thinned == 0 && skipped == 0; }
};

// Not thread-safe: its owner serialises Offer and Take.
class LiveThinner {
 public:
  // REQUIRES: max_items > 0.
  explicit LiveThinner(size_t max_items);

  // Takes one item of the stream (an event, a span or a lag; a batch's
  // items are offered one by one): kept while this period has room,
  // counted as thinned beyond; a lag's skipped count is added up.
  void Offer(const v1::TailResponse& item);

  // This period's batch; the next period starts empty.
  LiveBatch Take();

  size_t max_items() const { return max_items_; }

 private:
  const size_t max_items_;
  LiveBatch current_;
  LiveTotals totals_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_LIVE_THINNER_H_
