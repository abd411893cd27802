// The status report (GetStatus's answer) built from a snapshot of the
// daemon's parts, without a gRPC server: every counter is reported under
// its name, with its own value.
#include "api/status_report.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/api_server.h"

namespace optrace::daemon {
namespace {

// The value of counter `name` in `report`; fails the test when absent.
uint64_t CounterIn(const v1::GetStatusResponse& report, const std::string& name) {
  const auto it = report.counters().find(name);
  EXPECT_NE(it, report.counters().end()) << "no counter " << name;
  return it == report.counters().end() ? 0 : it->second;
}

TEST(StatusReportTest, EveryDaemonCounter_ReportedUnderItsNameWithItsOwnValue) {
  DaemonCounters counters;
  uint64_t value = 1000;
  std::set<std::string_view> names;
  for (const DaemonCounterSpec& row : kDaemonCounters) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " is in the table twice";
    EXPECT_FALSE(row.help.empty()) << row.name;
    (counters.*row.member).store(value++);
  }
  StatusSnapshot state;
  state.counters = &counters;
  v1::GetStatusResponse report;
  FillStatusReport(state, &report);
  value = 1000;
  for (const DaemonCounterSpec& row : kDaemonCounters) {
    EXPECT_EQ(CounterIn(report, std::string(row.name)), value++) << row.name;
  }
  EXPECT_EQ(report.events_ingested(), counters.events_ingested.load());
  EXPECT_EQ(report.segments_rejected(), counters.segments_rejected.load());
  EXPECT_EQ(report.abi_violations(), counters.abi_violations.load());
}

// These names are read by `optrace status`, docs/daemon.md and the
// integration tests: renaming one breaks them.
TEST(StatusReportTest, ServingAndStoreCounters_ReportedUnderTheirWireNames) {
  DaemonCounters counters;
  StatusSnapshot state;
  state.counters = &counters;
  state.serving = {.tail_records_published = 11,
                   .tail_items_skipped = 12,
                   .streams_open = 13,
                   .stream_bytes_in_flight = 14,
                   .accepts_paused_fd_limit = 15};
  state.store.batches_committed = 21;
  state.store.spans_committed = 22;
  state.store.batches_refused = 23;
  state.store.batches_dropped = 24;
  state.store.write_errors = 25;
  state.store.sessions_deleted_by_retention = 26;
  state.store.spans_trimmed_by_window = 27;
  state.store.spans_trimmed_by_cap = 28;
  state.store.keeps_recorded = 29;
  state.store.keeps_refused_by_budget = 30;
  state.store.strings_removed_by_retention = 31;
  v1::GetStatusResponse report;
  FillStatusReport(state, &report);
  const std::pair<const char*, uint64_t> expected[] = {
      {"tail_records_published", 11},
      {"tail_items_skipped", 12},
      {"streams_open", 13},
      {"stream_bytes_in_flight", 14},
      {"accepts_paused_fd_limit", 15},
      {"batches_committed", 21},
      {"spans_committed", 22},
      {"batches_refused", 23},
      {"batches_dropped", 24},
      {"write_errors", 25},
      {"sessions_deleted_by_retention", 26},
      {"spans_trimmed_by_window", 27},
      {"spans_trimmed_by_cap", 28},
      {"keeps_recorded", 29},
      {"keeps_refused_by_budget", 30},
      {"strings_removed_by_retention", 31},
  };
  for (const auto& [name, value] : expected) EXPECT_EQ(CounterIn(report, name), value) << name;
  EXPECT_EQ(report.counters().size(), std::size(kDaemonCounters) + std::size(expected))
      << "no forward_* counters without a forwarder";
  EXPECT_FALSE(report.has_forward());
  EXPECT_EQ(report.writer_errors(), 25u);
}

TEST(StatusReportTest, Forwarding_ForwardStatusAndCountersReported) {
  DaemonCounters counters;
  StatusSnapshot state;
  state.counters = &counters;
  state.forward = ForwarderStatus{.url = "http://ch1:8123",
                                  .node = "gpu-17",
                                  .table = "optrace.spans",
                                  .spans_sent = 31,
                                  .batches_sent = 32,
                                  .spans_lost_to_retention = 33,
                                  .errors = 34,
                                  .last_error = "timeout",
                                  .backlog_spans = 35,
                                  .last_sent_unix_ns = 36};
  v1::GetStatusResponse report;
  FillStatusReport(state, &report);
  ASSERT_TRUE(report.has_forward());
  EXPECT_EQ(report.forward().node(), "gpu-17");
  EXPECT_EQ(report.forward().last_error(), "timeout");
  EXPECT_EQ(report.forward().last_sent_unix_ns(), 36);
  EXPECT_EQ(CounterIn(report, "forward_spans_sent"), 31u);
  EXPECT_EQ(CounterIn(report, "forward_batches_sent"), 32u);
  EXPECT_EQ(CounterIn(report, "forward_spans_lost_to_retention"), 33u);
  EXPECT_EQ(CounterIn(report, "forward_errors"), 34u);
  EXPECT_EQ(CounterIn(report, "forward_backlog_spans"), 35u);
}

TEST(StatusReportTest, Listeners_ReportedAsDescribed) {
  DaemonCounters counters;
  StatusSnapshot state;
  state.counters = &counters;
  ApiServerOptions tcp;
  tcp.listen = "127.0.0.1:7070";
  tcp.insecure_tcp_admin = true;
  state.listeners = {DescribeTcpListener(tcp)};
  v1::GetStatusResponse report;
  FillStatusReport(state, &report);
  ASSERT_EQ(report.listeners_size(), 1);
  EXPECT_EQ(report.listeners(0).kind(), v1::LISTENER_KIND_GRPC);
  EXPECT_EQ(report.listeners(0).address(), "127.0.0.1:7070");
  EXPECT_FALSE(report.listeners(0).tls());
  EXPECT_TRUE(report.listeners(0).unauthenticated());
  EXPECT_NE(report.listeners(0).warning().find("every caller of 127.0.0.1:7070 is an admin"),
            std::string::npos)
      << report.listeners(0).warning();
  StatusSnapshot without;
  without.counters = &counters;
  v1::GetStatusResponse none;
  FillStatusReport(without, &none);
  EXPECT_EQ(none.listeners_size(), 0) << "none without --listen or --metrics-listen";
}

TEST(StatusReportTest, Drops_DaemonShedIsAFloorAndStoredSessionsAdded) {
  DaemonCounters counters;
  counters.events_shed.store(5);
  StatusSnapshot state;
  state.counters = &counters;
  state.drain.drops.dropped_ring_full = 4;
  state.drain.drops.dropped_shed = 2;
  v1::GetStatusResponse unread;
  FillStatusReport(state, &unread);
  EXPECT_EQ(unread.drops().ring_full(), 4u);
  EXPECT_EQ(unread.drops().shed(), 5u) << "events the daemon shed before a session knew";
  EXPECT_FALSE(unread.has_all_sessions_drops()) << "stored sessions not read: left unset";

  state.stored_drops = SessionRecord{};
  state.stored_drops->dropped_ring_full = 3;
  state.stored_drops->dropped_shed = 7;
  v1::GetStatusResponse read;
  FillStatusReport(state, &read);
  ASSERT_TRUE(read.has_all_sessions_drops());
  EXPECT_EQ(read.all_sessions_drops().ring_full(), 7u);
  EXPECT_EQ(read.all_sessions_drops().shed(), 9u);
  EXPECT_EQ(read.drops().ring_full(), 4u) << "live sessions only";
}

}  // namespace
}  // namespace optrace::daemon
