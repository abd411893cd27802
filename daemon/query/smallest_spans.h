// SmallestSpans: the n first spans in QueryOps order out of a stream that
// is only roughly ordered.
#ifndef OPTRACE_DAEMON_QUERY_SMALLEST_SPANS_H_
#define OPTRACE_DAEMON_QUERY_SMALLEST_SPANS_H_

#include <cstddef>
#include <vector>

#include "model/span.h"

namespace optrace::daemon {

// QueryOps order: by start, then op id, then every other field, so that the
// order is total (spans equal in it are identical) and every page of a
// query agrees with the next on which of two same-(start, op id) spans
// comes first.
bool SpanOrderLess(const Span& a, const Span& b);

// Whether `a` and `b` share (start, op id): the part of the order a cursor
// records.
inline bool SameSpanKey(const Span& a, const Span& b) {
  return a.start_ns == b.start_ns && a.op_id == b.op_id;
}

// Keeps the `capacity` smallest spans offered so far (a max-heap: memory is
// bounded by `capacity`, whatever the number offered).
// Thread rules: a value type, one thread at a time.
class SmallestSpans {
 public:
  // REQUIRES: capacity >= 1.
  explicit SmallestSpans(size_t capacity);

  void Offer(const Span& span);
  bool full() const { return heap_.size() == capacity_; }
  size_t size() const { return heap_.size(); }

  // The spans kept, in SpanOrderLess order; leaves this empty.
  std::vector<Span> TakeSorted();

 private:
  size_t capacity_;
  std::vector<Span> heap_;  // std::push_heap order: the largest in front
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_SMALLEST_SPANS_H_
