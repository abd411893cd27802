#include "query/smallest_spans.h"

#include <algorithm>
#include <tuple>

#include "storage/span_page_codec.h"

namespace optrace::daemon {

// Start, op id, status and parent first; then every stored field in page
// column order (those four again, equal by then).
bool SpanOrderLess(const Span& a, const Span& b) {
  const auto first = [](const Span& s) {
    return std::tie(s.start_ns, s.op_id, s.status, s.parent_op_id);
  };
  if (const auto order = first(a) <=> first(b); order != 0) return order < 0;
#define OPTRACE_SPAN_ORDER_TIE_BREAK(column, member, coding, since) \
  if (a.member != b.member) return a.member < b.member;
  OPTRACE_SPAN_PAGE_COLUMNS(OPTRACE_SPAN_ORDER_TIE_BREAK)
#undef OPTRACE_SPAN_ORDER_TIE_BREAK
  return false;
}

SmallestSpans::SmallestSpans(size_t capacity) : capacity_(capacity) { heap_.reserve(capacity); }

void SmallestSpans::Offer(const Span& span) {
  if (heap_.size() < capacity_) {
    heap_.push_back(span);
    std::push_heap(heap_.begin(), heap_.end(), SpanOrderLess);
    return;
  }
  if (!SpanOrderLess(span, heap_.front())) return;
  std::pop_heap(heap_.begin(), heap_.end(), SpanOrderLess);
  heap_.back() = span;
  std::push_heap(heap_.begin(), heap_.end(), SpanOrderLess);
}

std::vector<Span> SmallestSpans::TakeSorted() {
  std::sort_heap(heap_.begin(), heap_.end(), SpanOrderLess);
  std::vector<Span> sorted;
  sorted.swap(heap_);
  return sorted;
}

}  // namespace optrace::daemon
