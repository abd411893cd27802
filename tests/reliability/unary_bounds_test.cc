// What one caller's requests may hold (issue 29, finding 6): statistics
// and comparisons of a session with 500,000 distinct tags stay within a
// stated memory bound and answer or refuse naming the bound and its key,
// and one uid's unread QueryOps and Export streams leave room for another
// uid's. A real optraced over a crafted store (written by the daemon's own
// store, then op_aggregates rows added by SQL as a foreign writer would),
// real clients of two uids.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <thread>

#include "model/store_batch.h"
#include "other_uid_stage.h"
#include "reliability_harness.h"
#include "storage/span_store.h"
#include "storage/sqlite_connection.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t kDistinctTags = 500'000;
constexpr daemon::StringId kFirstTag = 100;
constexpr daemon::StringId kName = 1;
// What the calls below may add to the daemon's own memory: the groups a
// request may hold (max_query_groups, 16,384) and the pages it decodes
// (a page is up to 65,536 spans), not the 500,000 the session has.
constexpr uint64_t kAddedBoundKib = 64 << 10;

// Session 1: 500,000 spans of one name, each of a tag of its own, stored
// by the daemon's store (which folds its aggregates to 10,000 groups).
// Session 2: no spans, and 500,000 op_aggregates rows of distinct tags
// added by SQL, which no optraced writes.
void CraftStore(const std::string& db_path) {
  {
    auto store = daemon::SpanStore::Open({.db_path = db_path});
    ASSERT_TRUE(store.ok()) << store.status().message();
    daemon::StoreBatch batch;
    batch.sequence = 1;
    batch.new_strings.emplace_back(kName, "crafted_op");
    daemon::SessionSpans spans{.session = 1, .spans = {}};
    for (uint32_t i = 0; i < kDistinctTags; ++i) {
      batch.new_strings.emplace_back(kFirstTag + i, "tag_" + std::to_string(i));
      daemon::Span& span = spans.spans.emplace_back();
      span.op_id = i + 1;
      span.start_ns = 1'000'000'000 + int64_t{i} * 1000;
      span.duration_ns = 100 + i;
      span.name = kName;
      span.tag = kFirstTag + i;
    }
    batch.spans.push_back(std::move(spans));
    for (daemon::SessionId id : {1, 2}) {
      daemon::SessionRecord& record = batch.sessions.emplace_back();
      record.id = id;
      record.segment_name = "crafted." + std::to_string(id);
      record.pid = 4242;
      record.state = daemon::SessionState::kExited;
      record.start_ns = 1'000'000'000;
      record.end_ns = 2'000'000'000;
      record.spans = id == 1 ? kDistinctTags : 0;
    }
    ASSERT_TRUE(store.value()->Submit(std::move(batch)));
    ASSERT_TRUE(store.value()->Flush(300'000));
    ASSERT_EQ(store.value()->GetStatus().batches_committed, 1u)
        << store.value()->GetStatus().last_error;
  }
  auto db = daemon::SqliteConnection::Open(db_path, daemon::SqliteOpenMode::kReadWriteCreate, 5000);
  ASSERT_TRUE(db.ok()) << db.status().message();
  const Status inserted = db.value()->Exec(
      "INSERT INTO op_aggregates(session_id, name, tag, target, device, count, ok_count, "
      "total_ns, min_ns, max_ns) SELECT 2, " +
      std::to_string(kName) +
      ", id, 0, 0, 1, 1, 1000, 1000, 1000 FROM strings WHERE id >= " + std::to_string(kFirstTag));
  ASSERT_TRUE(inserted.ok()) << inserted.message();
}

std::shared_ptr<grpc::Channel> UnlimitedConnection(const std::string& socket_path) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);  // whatever the daemon answers, it is read
  args.SetInt("grpc.optrace_test_id", 1);
  return grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args);
}

// The outcome of one call: ok with the rows it answered, or the error.
struct Outcome {
  grpc::Status status;
  int rows = 0;
};

Outcome Stats(v1::OpTrace::Stub& stub, uint64_t session, bool exact) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 120s);
  v1::GetStatsRequest request;
  request.set_session_id(session);
  request.set_by(v1::GROUP_BY_TAG);
  request.set_exact(exact);
  v1::GetStatsResponse response;
  Outcome out{stub.GetStats(&ctx, request, &response)};
  out.rows = response.rows_size();
  return out;
}

Outcome Compare(v1::OpTrace::Stub& stub, uint64_t a, uint64_t b) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 120s);
  v1::CompareSessionsRequest request;
  request.set_session_a(a);
  request.set_session_b(b);
  request.set_by(v1::GROUP_BY_TAG);
  v1::CompareSessionsResponse response;
  Outcome out{stub.CompareSessions(&ctx, request, &response)};
  out.rows = response.rows_size();
  return out;
}

std::string Describe(const Outcome& outcome) {
  return outcome.status.ok()
             ? std::to_string(outcome.rows) + " rows"
             : std::to_string(outcome.status.error_code()) + " " + outcome.status.error_message();
}

TEST(UnaryBoundsTest, Malicious_500kDistinctTags_StatsAndCompareBoundedOrRefusedNamingTheKey) {
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();  // makes the database
  ASSERT_EQ(daemon.Stop(), 0) << daemon.log();
  CraftStore(daemon.db_path());
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  auto stub = v1::OpTrace::NewStub(UnlimitedConnection(daemon.socket_path()));

  // From session 1's aggregates, which the store folded: an answer.
  const Outcome folded = Stats(*stub, 1, false);
  ASSERT_TRUE(folded.status.ok()) << Describe(folded);
  EXPECT_LE(folded.rows, 10'001);
  std::this_thread::sleep_for(500ms);
  const uint64_t before_kib = PrivateResidentKib(pid);

  RssSampler rss(pid);
  const Outcome pass = Stats(*stub, 1, true);     // a pass over 500,000 tags
  const Outcome stored = Stats(*stub, 2, false);  // 500,000 stored groups
  const Outcome compared = Compare(*stub, 1, 2);  // against those
  const Outcome itself = Compare(*stub, 1, 1);    // folded: an answer
  rss.Stop();
  const uint64_t added_kib =
      rss.private_peak_kib() > before_kib ? rss.private_peak_kib() - before_kib : 0;

  for (const Outcome* refused : {&pass, &stored, &compared}) {
    EXPECT_EQ(refused->status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << Describe(*refused);
    EXPECT_NE(refused->status.error_message().find("the cap max_query_groups is 16384"),
              std::string::npos)
        << Describe(*refused);
  }
  EXPECT_TRUE(itself.status.ok()) << Describe(itself);
  EXPECT_LT(added_kib, kAddedBoundKib) << "the requests' memory is not bounded by their groups";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("500,000 distinct tags: GetStats from the folded aggregates " + Describe(folded) +
               "; exact pass: " + Describe(pass) + "; 500,000 stored groups: " + Describe(stored) +
               "; CompareSessions with them: " + Describe(compared) +
               "; the folded session with itself: " + Describe(itself) + "; " +
               std::to_string(added_kib) + " KiB added to the daemon's own memory (bound " +
               std::to_string(kAddedBoundKib) + ")");
}

TEST(UnaryBoundsTest, StalledExportsOfOneUid_OtherUidsQueryOpsAndExportServed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  ASSERT_EQ(::chmod(folder.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod((folder.path() + "/run").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(daemon.socket_path().c_str(), 0666), 0);
  StoreView store(daemon.db_path());
  // A session of each uid, larger than what a client that does not read
  // takes.
  auto mine = StartTestProducer({"--ops", "200000"});
  OtherUidStage stage;
  Subprocess theirs(stage.Command(TestProducerPath(), {"--ops", "1000"}),
                    {{"OPTRACE_LEVEL", "trace"}});
  ASSERT_TRUE(mine->Wait(60s).has_value());
  ASSERT_TRUE(theirs.Wait(60s).has_value());
  const auto my_session = store.WaitForEnd(static_cast<uint32_t>(mine->pid()), 30s);
  const auto their_session = store.WaitForEnd(static_cast<uint32_t>(theirs.pid()), 30s);
  ASSERT_TRUE(my_session.has_value()) << daemon.log();
  ASSERT_TRUE(their_session.has_value()) << daemon.log();

  // Uid 0 holds as many exports as the daemon would serve, and never reads.
  Subprocess stalled({OPTRACE_TEST_CLIENT, "stall-export", daemon.socket_path(), "30",
                      std::to_string(my_session->id)});
  ASSERT_TRUE(stalled.WaitForLine("opened", 30s).has_value()) << stalled.stderr_text();
  std::this_thread::sleep_for(1s);
  Subprocess other({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "read-session", daemon.socket_path(),
                    std::to_string(their_session->id)});
  const auto exited = other.Wait(60s);
  stalled.Kill(SIGKILL);
  ASSERT_TRUE(exited.has_value());
  const std::string out = other.stdout_text();
  EXPECT_EQ(out.rfind("queryops 0 ", 0), 0u) << out;
  EXPECT_NE(out.find(" export 0 "), std::string::npos) << out;
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("30 stalled exports of uid 0; uid 65534's QueryOps and Export: " +
               out.substr(0, out.find('\n')));
}

}  // namespace
}  // namespace optrace::testing
