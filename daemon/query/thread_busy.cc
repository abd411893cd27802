#include "query/thread_busy.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "model/flat_id_map.h"
#include "query/duration_math.h"
#include "storage/op_aggregate.h"

namespace optrace::daemon {
namespace {

// What one thread's spans add up to.
struct ThreadTotals {
  uint32_t tid = 0;
  uint64_t ops = 0;
  uint64_t busy_ns = 0;
  int64_t first_start_ns = 0;
  int64_t last_end_ns = 0;
};

// Whether the thread that launched `span` spent its time: launched and
// completed on that thread, and not timed on a device (SpanCorrelator's
// rule for subtracting a child from its parent).
bool SpentOnItsThread(const Span& span) {
  return span.status == SpanStatus::kOk && span.launch_tid != 0 &&
         span.launch_tid == span.complete_tid && !span.has_device_ns;
}

int64_t EndOf(const Span& span) {
  const uint64_t duration = std::min(span.duration_ns, kMaxAggregateNs);
  return span.start_ns > std::numeric_limits<int64_t>::max() - static_cast<int64_t>(duration)
             ? std::numeric_limits<int64_t>::max()
             : span.start_ns + static_cast<int64_t>(duration);
}

}  // namespace

Status FillThreadBusy(SpanReader& reader, SessionId session, SpanFilter& filter,
                      v1::GetStatsResponse* response) {
  std::vector<ThreadTotals> threads;
  FlatIdMap<uint32_t> index_of;  // tid -> its index in `threads`
  bool too_many = false;
  const span_page::ColumnSet columns =
      span_page::kStatus | span_page::kStartNs | span_page::kDurationNs | span_page::kChildrenNs |
      span_page::kLaunchTid | span_page::kCompleteTid | span_page::kHasDeviceNs | filter.Columns();
  Status scanned = reader.ForEachSpanPage(
      session, filter.min_start_ns(), filter.max_start_ns(),
      [&](std::span<const Span> page) {
        for (const Span& span : page) {
          if (!SpentOnItsThread(span) || !filter.Matches(span)) continue;
          uint32_t* index = index_of.Find(span.launch_tid);
          if (index == nullptr) {
            if (threads.size() == kMaxThreadsTracked) {
              too_many = true;
              return false;
            }
            index = &index_of.Insert(span.launch_tid, static_cast<uint32_t>(threads.size()));
            threads.push_back({span.launch_tid, 0, 0, span.start_ns, EndOf(span)});
          }
          ThreadTotals& thread = threads[*index];
          ++thread.ops;
          thread.busy_ns = AddCapped(thread.busy_ns, std::min(SelfNs(span), kMaxAggregateNs));
          thread.first_start_ns = std::min(thread.first_start_ns, span.start_ns);
          thread.last_end_ns = std::max(thread.last_end_ns, EndOf(span));
        }
        return true;
      },
      columns);
  if (!scanned.ok()) return scanned;
  if (too_many) {
    return Status::ResourceExhausted("session " + std::to_string(session) + " has more than " +
                                     std::to_string(kMaxThreadsTracked) +
                                     " threads, more than one busy-share pass tracks");
  }
  std::sort(threads.begin(), threads.end(), [](const ThreadTotals& a, const ThreadTotals& b) {
    return a.busy_ns != b.busy_ns ? a.busy_ns > b.busy_ns : a.tid < b.tid;
  });
  const size_t listed = std::min(threads.size(), kMaxThreadsListed);
  for (size_t i = 0; i < listed; ++i) {
    const ThreadTotals& thread = threads[i];
    // Whole nanoseconds apart; a hostile start past its end reads as 0.
    const uint64_t wall = thread.last_end_ns > thread.first_start_ns
                              ? static_cast<uint64_t>(thread.last_end_ns) -
                                    static_cast<uint64_t>(thread.first_start_ns)
                              : 0;
    v1::ThreadBusy* out = response->add_threads();
    out->set_tid(thread.tid);
    out->set_ops(thread.ops);
    out->set_busy_ns(thread.busy_ns);
    out->set_first_start_unix_ns(thread.first_start_ns);
    out->set_last_end_unix_ns(thread.last_end_ns);
    out->set_wall_ns(wall);
    out->set_busy_share(Ratio(static_cast<double>(thread.busy_ns), static_cast<double>(wall)));
  }
  response->set_threads_left_out(threads.size() - listed);
  return Status::Ok();
}

}  // namespace optrace::daemon
