#include "query/smallest_spans.h"

#include <algorithm>
#include <tuple>

namespace optrace::daemon {
namespace {

auto OrderFields(const Span& s) {
  return std::tie(s.start_ns, s.op_id, s.status, s.parent_op_id, s.duration_ns, s.device_ns, s.name,
                  s.tag, s.srcloc, s.launch_tid, s.complete_tid, s.stream, s.device, s.target,
                  s.has_device_ns);
}

}  // namespace

bool SpanOrderLess(const Span& a, const Span& b) { return OrderFields(a) < OrderFields(b); }

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
