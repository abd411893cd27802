// The daemon's status report: what GetStatus answers, built from what the
// daemon's parts said when it was asked.
#ifndef OPTRACE_DAEMON_API_STATUS_REPORT_H_
#define OPTRACE_DAEMON_API_STATUS_REPORT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "drain/daemon_counters.h"
#include "drain/drain_loop.h"
#include "forward/clickhouse_forwarder.h"
#include "model/session_record.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_store.h"

namespace optrace::daemon {

// The serving side's counters (the tail hub's and the stream quotas'),
// reported under their member names.
struct ServingCounters {
  uint64_t tail_records_published = 0;   // items put in the live buffer
  uint64_t tail_items_skipped = 0;       // items tails lost to being overtaken
  uint64_t streams_open = 0;             // all uids
  uint64_t stream_bytes_in_flight = 0;   // all uids
  uint64_t accepts_paused_fd_limit = 0;  // AcceptCounters
};

// What the daemon's parts said for one status report. Copies, except
// `counters`, which is borrowed and must outlive the report's filling.
struct StatusSnapshot {
  std::string version;
  std::string ns;
  std::string db_path;
  std::chrono::nanoseconds uptime{0};
  DrainStatus drain;
  const DaemonCounters* counters = nullptr;  // REQUIRES: not null
  StoreStatus store;
  // The drops of the stored sessions that are not in `drain.live_sessions`;
  // nullopt when the database could not be read (all_sessions_drops is
  // then left unset).
  std::optional<SessionRecord> stored_drops;
  // The stored sessions by state name; empty when the database could not
  // be read.
  std::map<std::string, uint64_t> stored_sessions;
  uint32_t tails = 0;  // live tails now
  ServingCounters serving;
  std::optional<ForwarderStatus> forward;  // nullopt when the daemon does not forward
  std::vector<v1::Listener> listeners;     // its TCP and HTTP listeners
};

// Fills `out` (expected empty) from `state`: the scalar fields, the drops
// of the live and of all sessions, the writer's and the forwarder's state,
// the listeners, and `counters`, which holds every row of kDaemonCounters, every
// ServingCounters member, the store's counters and, when forwarding, the
// forward_* counters, each under its name. Does not limit the report to a
// caller (LimitStatusToCaller does). Thread rules: none of its own.
void FillStatusReport(const StatusSnapshot& state, v1::GetStatusResponse* out);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_STATUS_REPORT_H_
