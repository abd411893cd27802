// Each thread's busy share of a session: the self time of the ops it ran
// over its wall time (GetStatsRequest.threads).
#ifndef OPTRACE_DAEMON_QUERY_THREAD_BUSY_H_
#define OPTRACE_DAEMON_QUERY_THREAD_BUSY_H_

#include <cstddef>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "query/span_filter.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// The most threads listed in a response (the busiest); the others are
// counted in threads_left_out.
inline constexpr size_t kMaxThreadsListed = 1'000;
// The most distinct threads one pass tracks: a session with more is
// refused (a thread costs about 40 bytes while the pass runs).
inline constexpr size_t kMaxThreadsTracked = 100'000;

// Fills `response->threads` and `threads_left_out` from one pass over
// `session`'s stored spans that pass `filter` (its time range included):
// per thread, the OK spans launched and completed on it and carrying no
// device duration, the spans whose self time the thread itself spent (the
// rule by which the correlator subtracts a child from its parent), their
// self times summed (SelfNs) over the thread's wall time, from the first
// such span's start to the last one's end. Busiest first (busy_ns, ties by
// tid), at most kMaxThreadsListed.
// REQUIRES: the caller holds a snapshot of `reader`, which `filter` reads
// through. Errors: kResourceExhausted beyond kMaxThreadsTracked threads;
// the reader's. Thread rules: the calling thread only.
Status FillThreadBusy(SpanReader& reader, SessionId session, SpanFilter& filter,
                      v1::GetStatsResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_THREAD_BUSY_H_
