// The daemon's status (GetStatus's report) as Prometheus metrics: every
// named counter, the drops by cause, and the gauges of now.
#ifndef OPTRACE_DAEMON_METRICS_STATUS_METRICS_H_
#define OPTRACE_DAEMON_METRICS_STATUS_METRICS_H_

#include "metrics/metrics_text.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Appends to `out`, from `status` (a whole report, not limited to a caller):
// each entry of status.counters as optrace_<name>_total (a counter), but
// for the few that are levels of now (streams_open, stream_bytes_in_flight,
// forward_backlog_spans), which are gauges optrace_<name>;
// optrace_events_dropped_total{cause} from all_sessions_drops (every field
// of Drops but total, by its name; `drops` when all_sessions_drops is
// unset); and the gauges optrace_database_bytes, optrace_attached_producers,
// optrace_sessions{state="running"}, optrace_live_tails,
// optrace_writer_queue_batches, optrace_writer_queue_spans,
// optrace_uptime_seconds and, when forwarding,
// optrace_forward_last_sent_timestamp_seconds. Thread rules: pure.
void WriteStatusMetrics(const v1::GetStatusResponse& status, MetricsText* out);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_STATUS_METRICS_H_
