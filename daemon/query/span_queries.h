// The stored-data RPCs' logic, over one SpanReader: QueryOps, GetStats,
// CompareSessions. Requests are validated here (INVALID_ARGUMENT with a
// message that says what to fix); whether the session exists and whether
// the caller may see it is checked by the service before.
#ifndef OPTRACE_DAEMON_QUERY_SPAN_QUERIES_H_
#define OPTRACE_DAEMON_QUERY_SPAN_QUERIES_H_

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// One page of QueryOps: spans in (start, op id) order after `cursor`.
struct QueryPage {
  std::vector<v1::Span> spans;
  std::string next_cursor;  // "" when there is nothing more
};

// What one GetStats or CompareSessions may hold (docs/daemon.md, "Bounds
// on requests"; config max_query_groups and max_query_durations_bytes).
struct QueryLimits {
  // Groups GetStats collects and returns; op_aggregates rows each session
  // of a CompareSessions may have.
  size_t max_groups = 16'384;
  // OK durations a GetStats pass keeps for exact percentiles (8 bytes
  // each); past it the percentiles come from sketches.
  uint64_t max_exact_durations = uint64_t{32} << 20;
  // Asked when a GetStats pass is over a session large enough for a
  // second thread: true when the caller may have one. Null: never.
  std::function<bool()> second_thread;
};

// Common to the three: each call reads one snapshot of the database (it
// opens its own read transaction on `reader`).
// REQUIRES: `reader` belongs to the calling thread and has no transaction
// (Snapshot) open. Errors besides those listed: the reader's (SQLite,
// damaged data).

// The spans of session `request.session_id()` that pass `request.filter()`
// (RE2 patterns matched anywhere, each distinct name or tag once), ordered
// by start, then op id (then the other fields, so that the order is total),
// at most `limit` (0 = kDefaultQueryLimit) after `request.cursor()`.
// next_cursor is set only when more spans follow. Spans stored after a page
// was returned that start before its cursor are not returned by later
// pages (a long op of a running session, stored when it completes).
// Cost: the windows of the session up to the end of the page, not the
// whole session (see ScanPage).
// Errors (kInvalidArgument): limit above kMaxQueryLimit; a bad filter (see
// SpanFilter::Compile); a cursor this daemon did not make.
Result<QueryPage> QueryOps(SpanReader& reader, const v1::QueryOpsRequest& request);

// Duration statistics of the session's spans that pass the filter,
// grouped by name, tag or target ("gpu:0": target and device ordinal),
// within `limits`.
// count covers every status; the durations (total, mean, min, max and the
// nearest-rank p50/p95/p99: the value at index ceil(q * n) - 1 of the n
// sorted OK durations) only OK spans; durations and totals are capped at
// kMaxAggregateNs like the stored aggregates. share = the group's total /
// the sum over all groups (0 when that is 0). Rows by total, largest first,
// ties by key; `top` keeps the first rows after shares are computed.
// response->total_ns and spans cover every group, before `top`.
// Source: the session's op_aggregates when they can answer (see
// AggregatesCanAnswer and StatsFromAggregates: the same counts and totals,
// percentiles within DurationSketch::kRelativeError, at a cost in the
// number of groups only); otherwise one pass over the session's spans in
// the filter's time range, 8 bytes of memory per OK span for exact
// percentiles up to limits.max_exact_durations, then sketches (within
// DurationSketch::kRelativeError). response->source and the fields after
// it say which. With `threads`, each thread's busy share from one more pass
// over the spans that pass the filter (FillThreadBusy).
// Errors (kInvalidArgument): an unknown GroupBy; a bad filter.
// (kResourceExhausted, naming max_query_groups): more than
// limits.max_groups groups, stored or met in the pass (which then stops);
// FillThreadBusy's.
Status GetStats(SpanReader& reader, const v1::GetStatsRequest& request, const QueryLimits& limits,
                v1::GetStatsResponse* response);

// Sessions a and b side by side per name or tag, from their stored
// op_aggregates (no span is read). A key is in a session when it has a
// span of any status there; ratios are b / a, 0 when the key is only in
// one session or the denominator is 0; means are total / ok_count. Rows by
// |total_change_ns|, largest first, ties by key. B's fused ops (tags that
// name their parts, docs/dispatch-names.md) are mapped onto A's ops of
// those parts (MapFusions): `fusions`, and then `unfused_rows` and
// fused_total_a_ns / fused_total_b_ns, as the proto documents them.
// Errors (kInvalidArgument): GROUP_BY_TARGET or an unknown GroupBy.
// (kResourceExhausted, naming max_query_groups): a session with more than
// limits.max_groups stored groups (so at most twice that many rows).
Status CompareSessions(SpanReader& reader, const v1::CompareSessionsRequest& request,
                       const QueryLimits& limits, v1::CompareSessionsResponse* response);

// GROUP_BY_UNSPECIFIED as GROUP_BY_NAME, the other known values as they
// are; errors (kInvalidArgument) for unknown values.
Result<v1::GroupBy> ValidGroupBy(v1::GroupBy by);

// Ok for a known StatsSort; kInvalidArgument naming an unknown value.
Status CheckStatsSort(v1::StatsSort sort);

// ValidGroupBy, and kInvalidArgument for GROUP_BY_TARGET, which
// CompareSessions does not support.
Result<v1::GroupBy> ValidCompareBy(v1::GroupBy by);

// Limits on request fields, for validation and docs.
inline constexpr uint32_t kDefaultQueryLimit = 1000;
inline constexpr uint32_t kMaxQueryLimit = 100000;

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_SPAN_QUERIES_H_
