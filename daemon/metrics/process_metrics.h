// The daemon's own process metrics, read from /proc/self as exporters
// usually name them: process_cpu_seconds_total, process_resident_memory_bytes,
// process_open_fds, process_max_fds.
#ifndef OPTRACE_DAEMON_METRICS_PROCESS_METRICS_H_
#define OPTRACE_DAEMON_METRICS_PROCESS_METRICS_H_

#include "metrics/metrics_text.h"

namespace optrace::daemon {

// Appends the four families to `out`. A value that cannot be read (no
// /proc) is left out with its family rather than reported as 0.
// Thread rules: any thread.
void WriteProcessMetrics(MetricsText* out);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_PROCESS_METRICS_H_
