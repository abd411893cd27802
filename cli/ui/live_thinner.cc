#include "ui/live_thinner.h"

#include <utility>

namespace optrace::cli {

LiveThinner::LiveThinner(size_t max_items) : max_items_(max_items) {
  current_.items.reserve(max_items_);
}

void LiveThinner::Offer(const v1::TailResponse& item) {
  switch (item.item_case()) {
    case v1::TailResponse::kLag:
      current_.skipped += item.lag().skipped();
      totals_.skipped += item.lag().skipped();
      return;
    case v1::TailResponse::kEvent:
    case v1::TailResponse::kSpan:
      break;
    default:  // a nested batch or an item this build does not know: not shown
      return;
  }
  ++totals_.received;
  if (current_.items.size() < max_items_) {
    current_.items.push_back(item);
    ++totals_.forwarded;
  } else {
    ++current_.thinned;
    ++totals_.thinned;
  }
}

LiveBatch LiveThinner::Take() {
  LiveBatch batch = std::move(current_);
  batch.totals = totals_;
  current_ = LiveBatch();
  current_.items.reserve(max_items_);
  return batch;
}

}  // namespace optrace::cli
