// The rolling window end to end (issue 25): a real optraced with a short
// --keep-last and a real producer tracing until stopped. The window trims
// while it runs, every span is stored or counted as trimmed, GetStatus
// (what `optrace status` prints) and the session say so, and GetStats from
// the aggregates still counts the whole session.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <limits>

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
  // window (and its page's spread) before the newest.
  uint64_t stored = 0;
  int64_t oldest = std::numeric_limits<int64_t>::max();
  int64_t newest = std::numeric_limits<int64_t>::min();
  daemon::SessionRecord record;
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
        return stored + record.trim.spans == record.spans &&
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

}  // namespace
}  // namespace optrace
