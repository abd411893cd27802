// TimeOrderedEvents: the events an export writer holds back until the
// export reaches their time (a slice's end, a device slice), earliest
// first. A 4-ary min-heap of 16-byte entries: four children fill one
// cache line, so that taking the earliest costs about half the cache
// misses of std::priority_queue's binary heap.
#ifndef OPTRACE_DAEMON_EXPORT_TIME_ORDERED_EVENTS_H_
#define OPTRACE_DAEMON_EXPORT_TIME_ORDERED_EVENTS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace optrace::daemon {

// An event waiting for its turn: the lower `key` first (ties: any
// order); the writer encodes its time in `key` and keeps what to write in
// `payload`.
struct TimedEvent {
  uint64_t key = 0;
  uint64_t payload = 0;
};
static_assert(sizeof(TimedEvent) == 16);

// Memory: one entry per event held. Thread rules: one thread at a time.
class TimeOrderedEvents {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  // The earliest event. REQUIRES: !empty().
  const TimedEvent& earliest() const { return heap_.front(); }

  void Push(const TimedEvent& event) {
    size_t at = heap_.size();
    heap_.push_back(event);
    while (at > 0) {
      const size_t parent = (at - 1) / kArity;
      if (event.key >= heap_[parent].key) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = event;
  }

  // Removes the earliest event. REQUIRES: !empty(). Bottom-up: the hole
  // goes down to a leaf along the earliest children (no comparison with
  // the last entry on the way, whose outcome would be hard to predict),
  // then the last entry rises from there, usually not far.
  void PopEarliest() {
    const TimedEvent last = heap_.back();
    heap_.pop_back();
    const size_t size = heap_.size();
    if (size == 0) return;
    size_t at = 0;
    while (at * kArity + kArity < size) {  // all four children there
      const size_t first = at * kArity + 1;
      const size_t a = heap_[first + 1].key < heap_[first].key ? first + 1 : first;
      const size_t b = heap_[first + 3].key < heap_[first + 2].key ? first + 3 : first + 2;
      const size_t earliest = heap_[b].key < heap_[a].key ? b : a;
      heap_[at] = heap_[earliest];
      at = earliest;
    }
    if (at * kArity + 1 < size) {  // some children there
      size_t earliest = at * kArity + 1;
      for (size_t child = earliest + 1; child < size; ++child) {
        earliest = heap_[child].key < heap_[earliest].key ? child : earliest;
      }
      heap_[at] = heap_[earliest];
      at = earliest;
    }
    while (at > 0) {
      const size_t parent = (at - 1) / kArity;
      if (last.key >= heap_[parent].key) break;
      heap_[at] = heap_[parent];
      at = parent;
    }
    heap_[at] = last;
  }

 private:
  static constexpr size_t kArity = 4;
  std::vector<TimedEvent> heap_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_TIME_ORDERED_EVENTS_H_
