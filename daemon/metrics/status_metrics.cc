#include "metrics/status_metrics.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drain/daemon_counters.h"

namespace optrace::daemon {
namespace {

// GetStatus counters that are a level of now, not a count since start.
constexpr std::string_view kGaugeCounters[] = {"streams_open", "stream_bytes_in_flight",
                                               "forward_backlog_spans"};

// The help of a counter: kDaemonCounters' where it is one of them.
std::string CounterHelp(std::string_view name) {
  for (const DaemonCounterSpec& row : kDaemonCounters) {
    if (row.name == name) return std::string(row.help);
  }
  return "optrace status counter " + std::string(name);
}

void WriteCounters(const v1::GetStatusResponse& status, MetricsText* out) {
  std::vector<std::pair<std::string, uint64_t>> counters(status.counters().begin(),
                                                         status.counters().end());
  std::sort(counters.begin(), counters.end());  // a stable order for readers
  for (const auto& [name, value] : counters) {
    const bool gauge = std::find(std::begin(kGaugeCounters), std::end(kGaugeCounters), name) !=
                       std::end(kGaugeCounters);
    const std::string metric = "optrace_" + name + (gauge ? "" : "_total");
    out->Family(metric, gauge ? "gauge" : "counter", CounterHelp(name));
    out->Sample(metric, {}, value);
  }
}

void WriteDrops(const v1::Drops& drops, MetricsText* out) {
  out->Family("optrace_events_dropped_total", "counter",
              "Events (and, for strings and names_capped, names) lost, by cause, summed over "
              "every stored session and the daemon.");
  const google::protobuf::Descriptor* descriptor = drops.GetDescriptor();
  const google::protobuf::Reflection* reflection = drops.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    if (field->number() == v1::Drops::kTotalFieldNumber) continue;  // a sum: rate() of the causes
    out->Sample("optrace_events_dropped_total", {{"cause", field->name()}},
                reflection->GetUInt64(drops, field));
  }
}

void WriteGauge(std::string_view name, std::string_view help, double value, MetricsText* out) {
  out->Family(name, "gauge", help);
  out->Sample(name, {}, value);
}

}  // namespace

void WriteStatusMetrics(const v1::GetStatusResponse& status, MetricsText* out) {
  WriteCounters(status, out);
  WriteDrops(status.has_all_sessions_drops() ? status.all_sessions_drops() : status.drops(), out);
  WriteGauge("optrace_database_bytes", "Size of the SQLite database and its WAL.",
             static_cast<double>(status.db_bytes()), out);
  WriteGauge("optrace_attached_producers", "Producer segments attached now.",
             status.attached_segments(), out);
  out->Family("optrace_sessions", "gauge",
              "Sessions by state: running (attached producers now), exited and crashed (in the "
              "database).");
  out->Sample("optrace_sessions", {{"state", "running"}}, uint64_t{status.running_sessions()});
  // Ended sessions only when the database was read (all_sessions_drops
  // is set then): a 0 must mean none.
  for (const char* ended : {"exited", "crashed"}) {
    if (!status.has_all_sessions_drops()) break;
    const auto stored = status.stored_sessions().find(ended);
    out->Sample("optrace_sessions", {{"state", ended}},
                stored != status.stored_sessions().end() ? stored->second : uint64_t{0});
  }
  WriteGauge("optrace_live_tails", "Live Tail streams now.", status.tails(), out);
  WriteGauge("optrace_writer_queue_batches", "Batches waiting for the storage writer.",
             static_cast<double>(status.writer_backlog_batches()), out);
  WriteGauge("optrace_writer_queue_spans", "Spans in the batches waiting for the storage writer.",
             static_cast<double>(status.writer_backlog_spans()), out);
  WriteGauge("optrace_uptime_seconds", "Seconds since the daemon started.",
             static_cast<double>(status.uptime_ns()) / 1e9, out);
  if (status.has_forward()) {
    WriteGauge("optrace_forward_last_sent_timestamp_seconds",
               "Unix time ClickHouse last acknowledged a batch (0 = never): time() minus it is "
               "the forwarder's lag.",
               static_cast<double>(status.forward().last_sent_unix_ns()) / 1e9, out);
  }
}

}  // namespace optrace::daemon
