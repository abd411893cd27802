// StatsPass: GetStats's pass over one session's spans, on two threads when
// the session is large.
#ifndef OPTRACE_DAEMON_QUERY_STATS_PASS_H_
#define OPTRACE_DAEMON_QUERY_STATS_PASS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "query/stats_groups.h"
#include "storage/op_aggregate.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// Sessions with at least this many spans (by their aggregates) are read by
// two threads.
inline constexpr uint64_t kStatsTwoThreadsFromSpans = 1'000'000;

// What the pass found: a row per group of the spans that passed the
// filter (in no particular order), and how many spans passed it.
struct StatsPassResult {
  std::vector<StatsGroups::Row> rows;
  uint64_t spans = 0;
  // The spans made more groups than StatsPassOptions::limits allow: the
  // pass stopped, and rows and spans are not the answer.
  bool exhausted = false;
  // More OK spans than the limits' max_exact_durations: the percentiles
  // come from sketches (within DurationSketch::kRelativeError).
  bool sketched = false;
};

struct StatsPassOptions {
  StatsGroups::Limits limits;
  // Sessions with at least this many spans (by their aggregates) are read
  // by two threads, when `second_thread` (asked then only) says the
  // caller may have one; null: always on the calling thread.
  uint64_t two_threads_from_spans = kStatsTwoThreadsFromSpans;
  std::function<bool()> second_thread;
};

// The group key of a span or an aggregate row with these fields under
// grouping `by`: the name or tag id, or the target and device packed.
uint64_t StatsGroupKey(v1::GroupBy by, StringId name, StringId tag, uint8_t target,
                       uint16_t device);

// Counts every span of `request.session_id()` that passes `request.filter()`
// into its group (StatsGroupKey of `by`), reading only the columns that
// needs, within `options.limits` (StatsGroups: the pass stops at the first
// span past max_groups). `aggregates` are the session's rows, read with
// `reader`: they size the groups up front and say how large the session
// is. With at least `options.two_threads_from_spans` spans, a second
// thread with a reader of its own (its own connection, snapshot, string
// cache and filter) reads every other page while the calling thread reads
// the rest (each within half of max_exact_durations), their groups are
// merged, and the two threads compute the groups' percentiles; the two
// snapshots differ only by what was committed between their starts.
// Errors: the filter's (SpanFilter::Compile), and the readers'.
// Thread rules: `reader` is used on the calling thread only.
Result<StatsPassResult> RunStatsPass(SpanReader& reader, const v1::GetStatsRequest& request,
                                     v1::GroupBy by, const std::vector<OpAggregateRow>& aggregates,
                                     const StatsPassOptions& options = {});

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_STATS_PASS_H_
