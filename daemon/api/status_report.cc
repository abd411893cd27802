#include "api/status_report.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

// A counter that GetStatus reports from a field of one of the parts' status
// structs.
template <typename Source>
struct FieldCounter {
  std::string_view name;
  uint64_t Source::*field;
};

constexpr FieldCounter<ServingCounters> kServingCounters[] = {
    {"tail_records_published", &ServingCounters::tail_records_published},
    {"tail_items_skipped", &ServingCounters::tail_items_skipped},
    {"streams_open", &ServingCounters::streams_open},
    {"stream_bytes_in_flight", &ServingCounters::stream_bytes_in_flight},
    {"accepts_paused_fd_limit", &ServingCounters::accepts_paused_fd_limit},
};

constexpr FieldCounter<StoreStatus> kStoreCounters[] = {
    {"batches_committed", &StoreStatus::batches_committed},
    {"spans_committed", &StoreStatus::spans_committed},
    {"batches_refused", &StoreStatus::batches_refused},
    {"batches_dropped", &StoreStatus::batches_dropped},
    {"write_errors", &StoreStatus::write_errors},
    {"sessions_deleted_by_retention", &StoreStatus::sessions_deleted_by_retention},
    {"strings_removed_by_retention", &StoreStatus::strings_removed_by_retention},
    {"spans_trimmed_by_window", &StoreStatus::spans_trimmed_by_window},
    {"spans_trimmed_by_cap", &StoreStatus::spans_trimmed_by_cap},
    {"keeps_recorded", &StoreStatus::keeps_recorded},
    {"keeps_refused_by_budget", &StoreStatus::keeps_refused_by_budget},
};

constexpr FieldCounter<ForwarderStatus> kForwardCounters[] = {
    {"forward_spans_sent", &ForwarderStatus::spans_sent},
    {"forward_batches_sent", &ForwarderStatus::batches_sent},
    {"forward_errors", &ForwarderStatus::errors},
    {"forward_backlog_spans", &ForwarderStatus::backlog_spans},
    {"forward_spans_lost_to_retention", &ForwarderStatus::spans_lost_to_retention},
};

using CounterMap = google::protobuf::Map<std::string, uint64_t>;

template <typename Source>
void ReportFields(const Source& source, std::span<const FieldCounter<Source>> rows,
                  CounterMap* out) {
  for (const auto& row : rows) (*out)[std::string(row.name)] = source.*row.field;
}

// The `drops` message of `record`'s loss counters; a shed event (or one of
// a batch the database refused) is counted in the daemon (events_shed,
// events_refused) before any session's record knows of it, so the
// daemon's count is a floor for dropped_shed.
v1::Drops DropsOf(SessionRecord record, uint64_t events_shed) {
  record.dropped_shed = std::max(record.dropped_shed, events_shed);
  v1::Session as_session;
  ToProto(record, &as_session);
  return as_session.drops();
}

void FillForward(const ForwarderStatus& f, v1::ForwardStatus* out) {
  out->set_url(f.url);
  out->set_node(f.node);
  out->set_table(f.table);
  out->set_spans_sent(f.spans_sent);
  out->set_batches_sent(f.batches_sent);
  out->set_spans_lost_to_retention(f.spans_lost_to_retention);
  out->set_errors(f.errors);
  out->set_last_error(f.last_error);
  out->set_backlog_spans(f.backlog_spans);
  out->set_last_sent_unix_ns(f.last_sent_unix_ns);
}

}  // namespace

void FillStatusReport(const StatusSnapshot& state, v1::GetStatusResponse* out) {
  const DaemonCounters& c = *state.counters;
  const uint64_t events_shed = c.events_shed.load() + c.events_refused.load();
  out->set_version(state.version);
  out->set_uptime_ns(static_cast<uint64_t>(state.uptime.count()));
  out->set_namespace_(state.ns);
  out->set_db_path(state.db_path);
  out->set_db_bytes(state.store.db_bytes);
  out->set_attached_segments(state.drain.attached_segments);
  out->set_running_sessions(state.drain.running_sessions);
  out->set_events_per_second(state.drain.events_per_second);
  out->set_events_ingested(c.events_ingested.load());
  *out->mutable_drops() = DropsOf(state.drain.drops, events_shed);
  // Every stored session: live ones with their live counters (fresher
  // than the last stored batch), the others as stored.
  if (state.stored_drops) {
    SessionRecord all_drops = state.drain.drops;
    AddDrops(*state.stored_drops, &all_drops);
    *out->mutable_all_sessions_drops() = DropsOf(all_drops, events_shed);
  }
  out->mutable_stored_sessions()->insert(state.stored_sessions.begin(),
                                         state.stored_sessions.end());
  out->set_writer_backlog_batches(state.store.queued_batches);
  out->set_writer_backlog_spans(state.store.queued_spans);
  out->set_writer_last_error(state.store.last_error);
  out->set_writer_errors(state.store.write_errors);
  out->set_segments_rejected(c.segments_rejected.load());
  out->set_abi_violations(c.abi_violations.load());
  out->set_tails(state.tails);
  out->set_default_level(LevelToProto(state.drain.default_level));
  CounterMap* counters = out->mutable_counters();
  for (const DaemonCounterSpec& row : kDaemonCounters) {
    (*counters)[std::string(row.name)] = (c.*row.member).load();
  }
  ReportFields<ServingCounters>(state.serving, kServingCounters, counters);
  ReportFields<StoreStatus>(state.store, kStoreCounters, counters);
  if (state.forward) {
    FillForward(*state.forward, out->mutable_forward());
    ReportFields<ForwarderStatus>(*state.forward, kForwardCounters, counters);
  }
  for (const v1::Listener& listener : state.listeners) *out->add_listeners() = listener;
}

}  // namespace optrace::daemon
