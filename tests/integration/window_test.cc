// The rolling window end to end (issue 25): a real optraced with a short
// --keep-last and a real producer tracing until stopped. The window trims
// while it runs, every span is stored or counted as trimmed, GetStatus
// (what `optrace status` prints) and the session say so, and GetStats from
// the aggregates still counts the whole session; a range kept while it
// runs (KeepRange) or by the runtime itself (optrace_keep) survives the
// window, and a latency rule keeps the window around slow ops.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include "daemon_process.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::DaemonProcess;
using testing::StartTestProducer;
using testing::StoreView;
using testing::WaitUntil;

constexpr int64_t kKeepLastNs = 1'000'000'000;
constexpr int64_t kKeepAroundNs = 100'000'000;  // keep_before and keep_after of the runtime keep
// A stored span may start before the window's edge by the spread of its
// page (one batch, cut every 20 ms): far less than this.
constexpr int64_t kPageSpreadBoundNs = 500'000'000;

TEST(WindowTest, KeepLast_ProducerRuns_WindowTrimsBoundedAndCounted) {
  testing::TempFolder folder;
  DaemonProcess daemon(folder.path(), {"--keep-last", "1s"});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto producer = StartTestProducer({"--forever", "--rate", "20000"});
  StoreView store(daemon.db_path());
  // Trimming starts once the session holds more than a second of spans.
  ASSERT_TRUE(WaitUntil(
      [&] {
        const auto record = store.SessionByPid(static_cast<uint32_t>(producer->pid()));
        return record && record->trim.spans > 0;
      },
      30s))
      << daemon.log();
  producer->Kill(SIGTERM);
  const auto status = producer->Wait(20s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
  const auto ended = store.WaitForEnd(static_cast<uint32_t>(producer->pid()), 20s);
  ASSERT_TRUE(ended) << daemon.log();

  // The last pass after the session's final batch brings it within its
  // window: every span stored or counted as trimmed, none older than the
  // window (and its page's spread) before the newest. The pass follows the
  // batch's commit: the figures are read once they held still for three
  // polls (40 ms), not between a commit and its pass.
  uint64_t stored = 0;
  int64_t oldest = std::numeric_limits<int64_t>::max();
  int64_t newest = std::numeric_limits<int64_t>::min();
  daemon::SessionRecord record;
  uint64_t trimmed_before_poll = 0;
  int still_polls = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        record = *store.SessionByPid(static_cast<uint32_t>(producer->pid()));
        stored = 0;
        oldest = std::numeric_limits<int64_t>::max();
        newest = std::numeric_limits<int64_t>::min();
        store.ForEachSpan(record.id, [&](const daemon::Span& span) {
          ++stored;
          oldest = std::min(oldest, span.start_ns);
          newest = std::max(newest, span.start_ns);
        });
        still_polls = record.trim.spans == trimmed_before_poll ? still_polls + 1 : 0;
        trimmed_before_poll = record.trim.spans;
        return still_polls >= 2 && stored + record.trim.spans == record.spans &&
               newest - oldest <= kKeepLastNs + kPageSpreadBoundNs;
      },
      20s))
      << "stored " << stored << " trimmed " << record.trim.spans << " of " << record.spans
      << " over " << newest - oldest << " ns";
  EXPECT_EQ(record.dropped_ring_full + record.dropped_shed, 0u);
  EXPECT_GT(record.trim.spans, 0u);
  EXPECT_LT(stored, record.spans);
  EXPECT_GT(record.trim.before_ns, 0);
  EXPECT_GT(oldest, record.trim.before_ns - kPageSpreadBoundNs);

  auto stub = v1::OpTrace::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext status_context;
  v1::GetStatusResponse report;
  ASSERT_TRUE(stub->GetStatus(&status_context, v1::GetStatusRequest(), &report).ok());
  EXPECT_GE(report.counters().at("spans_trimmed_by_window"), record.trim.spans);
  grpc::ClientContext session_context;
  v1::GetSessionRequest request;
  request.set_session_id(record.id);
  v1::GetSessionResponse session;
  ASSERT_TRUE(stub->GetSession(&session_context, request, &session).ok());
  EXPECT_EQ(session.session().spans_trimmed(), record.trim.spans);
  EXPECT_EQ(session.session().trimmed_before_unix_ns(), record.trim.before_ns);

  // Statistics from the aggregates cover the whole session, trimmed spans
  // included; the exact pass covers what is stored.
  for (const bool exact : {false, true}) {
    grpc::ClientContext stats_context;
    v1::GetStatsRequest stats_request;
    stats_request.set_session_id(record.id);
    stats_request.set_exact(exact);
    v1::GetStatsResponse stats;
    ASSERT_TRUE(stub->GetStats(&stats_context, stats_request, &stats).ok());
    uint64_t counted = 0;
    for (const v1::OpStats& row : stats.rows()) counted += row.count();
    EXPECT_EQ(stats.source(), exact ? v1::STATS_SOURCE_SPANS : v1::STATS_SOURCE_AGGREGATES);
    EXPECT_EQ(counted, exact ? stored : record.spans) << "exact " << exact;
  }
  EXPECT_EQ(daemon.Stop(), 0);
}

// The spans of `session` that started in [first_ns, last_ns].
uint64_t SpansIn(StoreView& store, daemon::SessionId session, int64_t first_ns, int64_t last_ns) {
  uint64_t count = 0;
  store.ForEachSpan(session, [&](const daemon::Span& span) {
    if (span.start_ns >= first_ns && span.start_ns <= last_ns) ++count;
  });
  return count;
}

// Checks that the kept range [first_ns, last_ns] of the session of
// `producer` (running, tracing at 20,000 ops a second) outlives the window:
// waits for the window to move past it, then stops the producer and waits
// for the session's last pass. Its spans all stay (`spans_at_keep` of them
// when given: a range wholly in the past is complete when kept), and
// nothing older than the window is stored outside it but for the pages
// that straddle its edges. Sets `*record` to the ended session. Call it in
// ASSERT_NO_FATAL_FAILURE.
void ExpectKeptRangeOutlivesTheWindow(StoreView& store, testing::Subprocess& producer,
                                      DaemonProcess& daemon, int64_t first_ns, int64_t last_ns,
                                      std::optional<uint64_t> spans_at_keep,
                                      std::optional<daemon::SessionRecord>* record) {
  const auto pid = static_cast<uint32_t>(producer.pid());
  ASSERT_TRUE(WaitUntil(
      [&] {
        *record = store.SessionByPid(pid);
        return *record && (*record)->trim.before_ns > last_ns + kKeepLastNs;
      },
      60s))
      << daemon.log();
  const uint64_t spans_kept = SpansIn(store, (*record)->id, first_ns, last_ns);
  if (spans_at_keep) {
    EXPECT_EQ(spans_kept, *spans_at_keep);
  }
  EXPECT_GT(spans_kept, 1000u) << "200 ms at 20000 ops/s";
  producer.Kill(SIGTERM);
  const auto status = producer.Wait(20s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer.stderr_text();
  ASSERT_TRUE(store.WaitForEnd(pid, 20s)) << daemon.log();
  ASSERT_TRUE(WaitUntil(
      [&] {
        *record = store.SessionByPid(pid);
        uint64_t stored = 0;
        store.ForEachSpan((*record)->id, [&](const daemon::Span&) { ++stored; });
        return stored + (*record)->trim.spans == (*record)->spans;
      },
      20s));
  EXPECT_EQ(SpansIn(store, (*record)->id, first_ns, last_ns), spans_kept);
  EXPECT_GT((*record)->trim.spans, 0u);
  const uint64_t old_outside =
      SpansIn(store, (*record)->id, 0, first_ns - kPageSpreadBoundNs - 1) +
      SpansIn(store, (*record)->id, last_ns + kPageSpreadBoundNs + 1, (*record)->trim.before_ns);
  EXPECT_EQ(old_outside, 0u);
}

TEST(WindowTest, KeepRange_ProducerRuns_KeptRangeSurvivesTheWindow) {
  testing::TempFolder folder;
  DaemonProcess daemon(folder.path(), {"--keep-last", "1s"});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto producer = StartTestProducer({"--forever", "--rate", "20000"});
  StoreView store(daemon.db_path());
  std::optional<daemon::SessionRecord> record;
  ASSERT_TRUE(WaitUntil(
      [&] {
        record = store.SessionByPid(static_cast<uint32_t>(producer->pid()));
        return record && record->spans > 10'000;
      },
      30s))
      << daemon.log();
  auto stub = v1::OpTrace::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext keep_context;
  v1::KeepRangeRequest keep_request;
  keep_request.set_session_id(record->id);
  keep_request.set_last_ns(200'000'000);
  keep_request.set_reason("integration");
  v1::KeepRangeResponse kept;
  const grpc::Status keep_status = stub->KeepRange(&keep_context, keep_request, &kept);
  ASSERT_TRUE(keep_status.ok()) << keep_status.error_message();
  const int64_t first_ns = kept.keep().first_unix_ns();
  const int64_t last_ns = kept.keep().last_unix_ns();
  EXPECT_EQ(last_ns - first_ns, 200'000'000);
  EXPECT_GT(kept.keep().bytes(), 0u);
  ASSERT_NO_FATAL_FAILURE(
      ExpectKeptRangeOutlivesTheWindow(store, *producer, daemon, first_ns, last_ns,
                                       SpansIn(store, record->id, first_ns, last_ns), &record));
  grpc::ClientContext list_context;
  v1::ListKeepsRequest list_request;
  list_request.set_session_id(record->id);
  v1::ListKeepsResponse keeps;
  ASSERT_TRUE(stub->ListKeeps(&list_context, list_request, &keeps).ok());
  ASSERT_EQ(keeps.keeps_size(), 1);
  EXPECT_EQ(keeps.keeps(0).reason(), "integration");
  EXPECT_EQ(keeps.keeps(0).first_unix_ns(), first_ns);
  // What the trim notices say: the session was trimmed past the keep.
  grpc::ClientContext get_context;
  v1::GetSessionRequest get_request;
  get_request.set_session_id(record->id);
  v1::GetSessionResponse got;
  ASSERT_TRUE(stub->GetSession(&get_context, get_request, &got).ok());
  EXPECT_GT(got.session().trimmed_before_unix_ns(), last_ns);
  EXPECT_EQ(got.session().keeps_before_trim(), 1u);
  EXPECT_EQ(daemon.Stop(), 0);
}

// A keep from the runtime: the producer calls optrace_keep("...") inside
// one of its ops (keep_before = keep_after = 100 ms here). ListKeeps shows
// a keep "runtime: ..." around the op, and it outlives the window.
TEST(WindowTest, RuntimeKeep_KeepAtAnOp_KeepAroundItSurvivesTheWindowOlderSpansTrimmed) {
  testing::TempFolder folder;
  const std::string config = folder.path() + "/optraced.toml";
  {
    std::ofstream out(config);
    out << "keep_before = \"100ms\"\nkeep_after = \"100ms\"\n";
  }
  DaemonProcess daemon(folder.path(), {"--keep-last", "1s", "--config", config});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  // 10000 iterations a second: the keep 2 s in, past a window's worth of
  // spans before it.
  auto producer = StartTestProducer(
      {"--forever", "--rate", "20000", "--keep-at", "20000", "--keep-reason", "out of memory"});
  const std::optional<std::string> kept = producer->WaitForLine("kept ", 60s);
  ASSERT_TRUE(kept.has_value()) << producer->stderr_text();
  unsigned long long op_id = 0;
  int rc = -1;
  ASSERT_EQ(std::sscanf(kept->c_str(), "op=%llu rc=%d", &op_id, &rc), 2) << *kept;
  ASSERT_EQ(rc, 0);
  ASSERT_NE(op_id, 0u);

  StoreView store(daemon.db_path());
  auto stub = v1::OpTrace::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  std::optional<daemon::SessionRecord> record;
  ASSERT_TRUE(WaitUntil(
      [&] {
        return (record = store.SessionByPid(static_cast<uint32_t>(producer->pid()))).has_value();
      },
      20s));
  v1::ListKeepsResponse keeps;
  ASSERT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext context;
        v1::ListKeepsRequest request;
        request.set_session_id(record->id);
        keeps.Clear();
        return stub->ListKeeps(&context, request, &keeps).ok() && keeps.keeps_size() > 0;
      },
      20s))
      << daemon.log();
  ASSERT_EQ(keeps.keeps_size(), 1);
  EXPECT_EQ(keeps.keeps(0).reason(), "runtime: out of memory");
  const int64_t first_ns = keeps.keeps(0).first_unix_ns();
  const int64_t last_ns = keeps.keeps(0).last_unix_ns();
  // keep_before before the call and keep_after after it, the end cut at
  // keep_after past the newest span stored then: a little before the call.
  EXPECT_LE(last_ns - first_ns, 2 * kKeepAroundNs);
  EXPECT_GT(last_ns - first_ns, 2 * kKeepAroundNs - 50'000'000);
  std::optional<int64_t> op_start;
  ASSERT_TRUE(WaitUntil(
      [&] {
        store.ForEachSpan(record->id, [&](const daemon::Span& span) {
          if (span.op_id == op_id) op_start = span.start_ns;
        });
        return op_start.has_value();
      },
      20s));
  EXPECT_GE(*op_start, first_ns + kKeepAroundNs - 10'000'000) << "the op began just before";
  EXPECT_LE(*op_start, first_ns + kKeepAroundNs);

  ASSERT_NO_FATAL_FAILURE(ExpectKeptRangeOutlivesTheWindow(store, *producer, daemon, first_ns,
                                                           last_ns, std::nullopt, &record));
  grpc::ClientContext status_context;
  v1::GetStatusResponse report;
  ASSERT_TRUE(stub->GetStatus(&status_context, v1::GetStatusRequest(), &report).ok());
  EXPECT_EQ(report.counters().at("keeps_recorded"), 1u);
  EXPECT_EQ(daemon.Stop(), 0);
}

// Issue 25: a latency rule of the config keeps the window around each op
// of its name slower than its threshold; a rule the ops stay under keeps
// nothing.
TEST(WindowTest, LatencyRule_SlowOps_WindowAroundThemKept) {
  testing::TempFolder folder;
  const std::string config = folder.path() + "/optraced.toml";
  {
    std::ofstream out(config);
    out << "[[keep_rule]]\nname = \"sleep_5ms\"\nslower_than = \"4ms\"\n"
           "[[keep_rule]]\nname = \"sleep_2ms\"\nslower_than = \"50ms\"\n";
  }
  DaemonProcess daemon(folder.path(), {"--config", config});
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto producer = StartTestProducer({"--sleeps"});
  const auto status = producer->Wait(60s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
  StoreView store(daemon.db_path());
  const auto ended = store.WaitForEnd(static_cast<uint32_t>(producer->pid()), 20s);
  ASSERT_TRUE(ended) << daemon.log();
  auto stub = v1::OpTrace::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  v1::ListKeepsResponse keeps;
  ASSERT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext context;
        v1::ListKeepsRequest request;
        request.set_session_id(ended->id);
        keeps.Clear();
        return stub->ListKeeps(&context, request, &keeps).ok() && keeps.keeps_size() > 0;
      },
      10s))
      << daemon.log();
  // Ten slow ops within milliseconds: their 40 s windows merge into one.
  ASSERT_EQ(keeps.keeps_size(), 1);
  EXPECT_EQ(keeps.keeps(0).reason(), "slow: sleep_5ms");
  // From keep_before before the first slow op to keep_after after the last
  // one (cut at keep_after past the newest span). A sleep_2ms that the
  // scheduler stretched past 5 ms may count as slow here: bounds, not
  // equalities.
  int64_t first_any = std::numeric_limits<int64_t>::max();
  int64_t last_slow = std::numeric_limits<int64_t>::min();
  store.ForEachSpan(ended->id, [&](const daemon::Span& span) {
    first_any = std::min(first_any, span.start_ns);
    if (span.duration_ns >= 5'000'000) last_slow = std::max(last_slow, span.start_ns);
  });
  constexpr int64_t kKeepBeforeNs = 30'000'000'000;
  constexpr int64_t kKeepAfterNs = 10'000'000'000;
  EXPECT_GE(keeps.keeps(0).first_unix_ns(), first_any - kKeepBeforeNs);
  EXPECT_LE(keeps.keeps(0).first_unix_ns(), last_slow - kKeepBeforeNs);
  EXPECT_GE(keeps.keeps(0).last_unix_ns(), last_slow + kKeepAfterNs);
  EXPECT_GT(keeps.keeps(0).bytes(), 0u);
  EXPECT_EQ(daemon.Stop(), 0);
}

}  // namespace
}  // namespace optrace
