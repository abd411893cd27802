// The gRPC API end to end: a real optraced, real producers and tail
// clients, a real gRPC channel over the daemon's Unix socket.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "daemon_process.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "producer_report.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::DaemonProcess;
using testing::DoneCounts;
using testing::ParseCounts;
using testing::StartTestProducer;
using testing::Subprocess;
using testing::WaitUntil;

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(daemon_.Start()) << daemon_.log();
    channel_ =
        grpc::CreateChannel("unix:" + daemon_.socket_path(), grpc::InsecureChannelCredentials());
    stub_ = v1::OpTrace::NewStub(channel_);
  }

  v1::Session WaitForSession(uint32_t pid, bool ended) {
    v1::Session found;
    WaitUntil(
        [&] {
          grpc::ClientContext ctx;
          v1::ListSessionsRequest req;
          req.set_all(true);
          v1::ListSessionsResponse resp;
          if (!stub_->ListSessions(&ctx, req, &resp).ok()) return false;
          for (const auto& s : resp.sessions()) {
            if (s.pid() == pid && (!ended || s.state() != v1::SESSION_STATE_RUNNING)) {
              found = s;
              return true;
            }
          }
          return false;
        },
        20s);
    return found;
  }

  v1::Level LiveLevelOf(uint32_t pid) {
    grpc::ClientContext ctx;
    v1::GetLevelResponse resp;
    if (!stub_->GetLevel(&ctx, v1::GetLevelRequest(), &resp).ok()) return v1::LEVEL_UNSPECIFIED;
    for (const auto& p : resp.producers()) {
      if (p.pid() == pid) return p.live();
    }
    return v1::LEVEL_UNSPECIFIED;
  }

  // A finished producer run and its stored session.
  struct Run {
    std::unique_ptr<Subprocess> producer;
    v1::Session session;
  };
  Run ProduceAndWait(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    Run run{StartTestProducer(args, std::move(env)), {}};
    EXPECT_TRUE(run.producer->Wait(30s).has_value());
    run.session = WaitForSession(static_cast<uint32_t>(run.producer->pid()), true);
    return run;
  }

  std::vector<v1::Span> AllSpans(uint64_t session, uint32_t limit, int* calls = nullptr) {
    std::vector<v1::Span> spans;
    std::string cursor;
    do {
      grpc::ClientContext ctx;
      v1::QueryOpsRequest req;
      req.set_session_id(session);
      req.set_limit(limit);
      req.set_cursor(cursor);
      auto reader = stub_->QueryOps(&ctx, req);
      v1::QueryOpsResponse chunk;
      cursor.clear();
      while (reader->Read(&chunk)) {
        spans.insert(spans.end(), chunk.spans().begin(), chunk.spans().end());
        cursor = chunk.next_cursor();
      }
      EXPECT_TRUE(reader->Finish().ok());
      if (calls != nullptr) ++*calls;
    } while (!cursor.empty());
    return spans;
  }

  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
};

TEST_F(ApiTest, GetStatus_ReportsVersionNamespaceAndCounters) {
  grpc::ClientContext ctx;
  v1::GetStatusResponse status;
  ASSERT_TRUE(stub_->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok());
  EXPECT_FALSE(status.version().empty());
  EXPECT_EQ(status.namespace_(), std::getenv("OPTRACE_NAMESPACE"));
  EXPECT_EQ(status.db_path(), daemon_.db_path());
  EXPECT_TRUE(status.counters().contains("batches_shed"));
}

// A producer that counts names replaced at a cap (as liboptrace_torch and
// the NVTX injection do past theirs): GetStatus and the session's drops
// show the count while it runs, and the stored session and
// all_sessions_drops once it has ended.
TEST_F(ApiTest, GetStatus_ProducerCountsNamesCapped_ShownLiveAndAfterItEnded) {
  auto producer =
      StartTestProducer({"--ops", "10", "--names-capped", "4097", "--hold-open", "held"});
  ASSERT_TRUE(producer->WaitForLine("holding=", 20s).has_value()) << producer->stderr_text();
  const auto pid = static_cast<uint32_t>(producer->pid());
  v1::GetStatusResponse status;
  ASSERT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        return stub_->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok() &&
               status.drops().names_capped() == 4097;
      },
      20s))
      << status.DebugString();
  EXPECT_EQ(status.all_sessions_drops().names_capped(), 4097u);
  EXPECT_EQ(status.drops().total(), 0u) << "capped names are not lost events";
  const v1::Session live = WaitForSession(pid, false);
  ASSERT_NE(live.id(), 0u);
  v1::GetSessionResponse detail;
  ASSERT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        v1::GetSessionRequest req;
        req.set_session_id(live.id());
        return stub_->GetSession(&ctx, req, &detail).ok() &&
               detail.session().drops().names_capped() == 4097;
      },
      20s))
      << detail.DebugString();

  producer->Kill(SIGKILL);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const v1::Session ended = WaitForSession(pid, true);
  EXPECT_EQ(ended.id(), live.id());
  EXPECT_EQ(ended.drops().names_capped(), 4097u);
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub_->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok());
  EXPECT_EQ(status.drops().names_capped(), 0u) << "no session runs";
  EXPECT_EQ(status.all_sessions_drops().names_capped(), 4097u);
}

// User and system CPU time of process `pid` so far, in clock ticks.
uint64_t CpuTicksOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // fields 14 and 15 of proc(5)
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

// Issue 29, finding 4: at its fd limit the daemon cannot accept the
// connections waiting in its backlog; it pauses accepting (and counts it)
// instead of spinning on poll at 100% CPU, and serves again once fds are
// free.
TEST_F(ApiTest, Malicious_ConnectionsPastTheFdLimit_AcceptPausesInsteadOfSpinningAndCounts) {
  const pid_t pid = daemon_.pid();
  size_t open_fds = 0;
  for ([[maybe_unused]] const auto& fd :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++open_fds;
  }
  rlimit before{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &before), 0) << std::strerror(errno);
  const rlimit low{open_fds + 16, before.rlim_max};  // the soft limit: restored without privileges
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, daemon_.socket_path().c_str(), sizeof addr.sun_path - 1);
  std::vector<int> clients;
  for (int i = 0; i < 64; ++i) {  // the backlog (128) keeps those it cannot accept
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    clients.push_back(fd);
    ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0)
        << std::strerror(errno);
  }
  std::this_thread::sleep_for(500ms);
  const uint64_t ticks_before = CpuTicksOf(pid);
  std::this_thread::sleep_for(1s);
  const uint64_t ticks = CpuTicksOf(pid) - ticks_before;
  for (const int fd : clients) ::close(fd);
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &before, nullptr), 0) << std::strerror(errno);
  EXPECT_LT(ticks, static_cast<uint64_t>(::sysconf(_SC_CLK_TCK)) / 10)
      << "clock ticks of CPU in 1 s at the fd limit";
  uint64_t paused = 0;
  EXPECT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        v1::GetStatusResponse status;
        if (!stub_->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok()) return false;
        paused = status.counters().contains("accepts_paused_fd_limit")
                     ? status.counters().at("accepts_paused_fd_limit")
                     : 0;
        return paused > 0;
      },
      10s))
      << "accepts_paused_fd_limit " << paused << "\n"
      << daemon_.log();
}

TEST_F(ApiTest, Socket_Mode0660) {
  struct stat st {};
  ASSERT_EQ(::stat(daemon_.socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
}

TEST_F(ApiTest, TailRaisesLevel_ClientKilled_LevelRestored) {
  auto producer = StartTestProducer({"--forever"}, {{"OPTRACE_LEVEL", ""}});  // off
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  const auto pid = static_cast<uint32_t>(producer->pid());
  ASSERT_TRUE(WaitUntil([&] { return LiveLevelOf(pid) == v1::LEVEL_OFF; }, 10s));
  Subprocess tail({OPTRACE_TEST_CLIENT, "tail", daemon_.socket_path()});
  ASSERT_TRUE(tail.WaitForLine("streaming", 10s).has_value());
  EXPECT_TRUE(WaitUntil([&] { return LiveLevelOf(pid) == v1::LEVEL_TRACE; }, 10s));
  EXPECT_TRUE(tail.WaitForLine("event inner", 10s).has_value()) << "traced while the tail lives";
  tail.Kill(SIGKILL);
  tail.Wait(10s);
  EXPECT_TRUE(WaitUntil([&] { return LiveLevelOf(pid) == v1::LEVEL_OFF; }, 15s))
      << "the level a killed tail raised is restored";
}

TEST_F(ApiTest, TailRunning_ProducerStartedDuringIt_TracedFromFirstOp) {
  Subprocess tail({OPTRACE_TEST_CLIENT, "tail", daemon_.socket_path()});
  ASSERT_TRUE(tail.WaitForLine("streaming", 10s).has_value());
  // The control segment carries the tail's level before any attach.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto probe = StartTestProducer({"--ops", "0"}, {{"OPTRACE_LEVEL", ""}});
        probe->Wait(10s);
        return DoneCounts(*probe).count("launches") && DoneCounts(*probe).at("launches") == 1;
      },
      10s));
  auto producer = StartTestProducer({"--ops", "100"}, {{"OPTRACE_LEVEL", ""}});
  ASSERT_TRUE(producer->Wait(20s).has_value());
  EXPECT_EQ(DoneCounts(*producer).at("launches"), 201u) << "every op, the first one included";
}

TEST_F(ApiTest, TwoTails_DifferentFilters_EachGetsItsOwn) {
  auto producer = StartTestProducer({"--forever"});
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  auto read_some = [&](const std::string& pattern, bool spans, std::set<std::string>* names,
                       std::set<std::string>* kinds) {
    grpc::ClientContext ctx;
    v1::TailRequest req;
    req.set_name_pattern(pattern);
    req.set_spans(spans);
    req.set_events(!spans);
    auto stream = stub_->Tail(&ctx, req);
    v1::TailResponse item;
    for (int i = 0; i < 200 && stream->Read(&item); ++i) {
      if (item.has_event()) {
        names->insert(item.event().name());
        kinds->insert("event");
      }
      if (item.has_span()) {
        names->insert(item.span().name());
        kinds->insert("span");
      }
    }
    ctx.TryCancel();
  };
  std::set<std::string> names_a, kinds_a, names_b, kinds_b;
  std::thread a([&] { read_some("^inner$", false, &names_a, &kinds_a); });
  std::thread b([&] { read_some("^outer$", true, &names_b, &kinds_b); });
  a.join();
  b.join();
  EXPECT_EQ(names_a, std::set<std::string>{"inner"});
  EXPECT_EQ(kinds_a, std::set<std::string>{"event"});
  EXPECT_EQ(names_b, std::set<std::string>{"outer"});
  EXPECT_EQ(kinds_b, std::set<std::string>{"span"});
}

TEST_F(ApiTest, SlowTailClient_GetsLagMarkerAndDrainUnaffected) {
  // 40,000 op pairs a second for 3 s: more than the live buffer holds
  // (65,536 records) for a client that stops reading, far less than the
  // drain can take (even in a sanitizer build).
  auto producer = std::make_unique<Subprocess>(
      std::vector<std::string>{OPTRACE_LOAD, "--threads", "1", "--rate", "40000", "--seconds", "3"},
      std::map<std::string, std::string>{{"OPTRACE_LEVEL", "trace"}});
  grpc::ClientContext ctx;
  v1::TailRequest req;
  auto stream = stub_->Tail(&ctx, req);
  v1::TailResponse item;
  ASSERT_TRUE(stream->Read(&item));
  std::this_thread::sleep_for(1500ms);  // stop reading: the daemon must not wait for us
  bool lagged = false;
  for (int i = 0; i < 200000 && !lagged && stream->Read(&item); ++i) lagged = item.has_lag();
  ctx.TryCancel();
  EXPECT_TRUE(lagged);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const auto done = DoneCounts(*producer);
  const v1::Session s = WaitForSession(static_cast<uint32_t>(producer->pid()), true);
  EXPECT_EQ(s.drops().total(), 0u) << "the slow tail cost the producer nothing";
  EXPECT_EQ(s.events(), done.at("launches") + done.at("completes"));
}

TEST_F(ApiTest, SetLevelByLabel_ReachesOnlyThoseProducersAndClearRestores) {
  auto a = StartTestProducer({"--forever"}, {{"OPTRACE_SESSION", "alpha"}, {"OPTRACE_LEVEL", ""}});
  auto b = StartTestProducer({"--forever"}, {{"OPTRACE_SESSION", "beta"}, {"OPTRACE_LEVEL", ""}});
  ASSERT_TRUE(a->WaitForLine("ready", 20s) && b->WaitForLine("ready", 20s));
  const auto pa = static_cast<uint32_t>(a->pid()), pb = static_cast<uint32_t>(b->pid());
  ASSERT_TRUE(WaitUntil(
      [&] { return LiveLevelOf(pa) == v1::LEVEL_OFF && LiveLevelOf(pb) == v1::LEVEL_OFF; }, 10s));
  grpc::ClientContext ctx;
  v1::SetLevelRequest req;
  req.set_level(v1::LEVEL_TRACE);
  req.set_label("alpha");
  v1::SetLevelResponse resp;
  ASSERT_TRUE(stub_->SetLevel(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.producers_reached(), 1u);
  EXPECT_EQ(LiveLevelOf(pa), v1::LEVEL_TRACE);
  EXPECT_EQ(LiveLevelOf(pb), v1::LEVEL_OFF);
  grpc::ClientContext ctx2;
  v1::SetLevelRequest global;
  global.set_level(v1::LEVEL_DEBUG);
  ASSERT_TRUE(stub_->SetLevel(&ctx2, global, &resp).ok());
  EXPECT_EQ(resp.producers_reached(), 2u);
  EXPECT_EQ(LiveLevelOf(pb), v1::LEVEL_DEBUG);
  EXPECT_EQ(LiveLevelOf(pa), v1::LEVEL_TRACE) << "the label override stays";
  grpc::ClientContext ctx3;
  v1::SetLevelRequest clear;
  clear.set_clear(true);
  clear.set_label("alpha");
  ASSERT_TRUE(stub_->SetLevel(&ctx3, clear, &resp).ok());
  EXPECT_EQ(LiveLevelOf(pa), v1::LEVEL_DEBUG);
}

TEST_F(ApiTest, GetSession_RunningWithOpenOp_ShowsItOpen) {
  auto producer = StartTestProducer({"--ops", "10", "--hold-open", "rms_norm"});
  const auto holding = producer->WaitForLine("holding=", 20s);
  ASSERT_TRUE(holding.has_value());
  const v1::Session s = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_NE(s.id(), 0u);
  v1::GetSessionResponse resp;
  ASSERT_TRUE(WaitUntil(
      [&] {
        grpc::ClientContext ctx;
        v1::GetSessionRequest req;
        req.set_session_id(s.id());
        return stub_->GetSession(&ctx, req, &resp).ok() && resp.open_ops_size() == 1;
      },
      10s));
  EXPECT_EQ(resp.open_ops(0).name(), "rms_norm");
  EXPECT_EQ(resp.open_ops(0).op_id(), ParseCounts("holding=" + *holding).at("holding"));
  EXPECT_GT(resp.open_ops(0).open_for_ns(), 0u);
  EXPECT_EQ(resp.session().state(), v1::SESSION_STATE_RUNNING);
}

TEST_F(ApiTest, QueryOps_PagedWithCursor_EverySpanExactlyOnceInOrder) {
  Run run = ProduceAndWait({"--ops", "1500"});
  int calls = 0;
  const auto spans = AllSpans(run.session.id(), 400, &calls);
  EXPECT_EQ(spans.size(), DoneCounts(*run.producer).at("launches"));
  EXPECT_EQ(calls, 8);
  std::set<uint64_t> ids;
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_TRUE(ids.insert(spans[i].op_id()).second);
    if (i > 0) {
      EXPECT_LE(spans[i - 1].start_unix_ns(), spans[i].start_unix_ns());
    }
  }
  // Filters: name pattern and target.
  grpc::ClientContext ctx;
  v1::QueryOpsRequest req;
  req.set_session_id(run.session.id());
  req.set_limit(100000);
  req.mutable_filter()->set_target(v1::TARGET_GPU);
  auto reader = stub_->QueryOps(&ctx, req);
  v1::QueryOpsResponse chunk;
  size_t gpu = 0;
  while (reader->Read(&chunk)) {
    for (const auto& s : chunk.spans()) {
      EXPECT_EQ(s.name(), "inner");
      ++gpu;
    }
  }
  EXPECT_EQ(gpu, 1500u);
}

TEST_F(ApiTest, GetStats_KnownSleeps_MatchProducerAndRawSpans) {
  Run run = ProduceAndWait({"--sleeps"});
  grpc::ClientContext ctx;
  v1::GetStatsRequest req;
  req.set_session_id(run.session.id());
  v1::GetStatsResponse stats;
  ASSERT_TRUE(stub_->GetStats(&ctx, req, &stats).ok());
  std::map<std::string, std::vector<uint64_t>> durations;
  for (const auto& s : AllSpans(run.session.id(), 1000))
    durations[s.name()].push_back(s.duration_ns());
  std::map<std::string, v1::OpStats> rows;
  for (const auto& r : stats.rows()) rows[r.key()] = r;
  ASSERT_TRUE(rows.count("sleep_2ms") && rows.count("sleep_5ms"));
  req.set_exact(true);
  grpc::ClientContext exact_ctx;
  v1::GetStatsResponse exact;
  ASSERT_TRUE(stub_->GetStats(&exact_ctx, req, &exact).ok());
  EXPECT_EQ(exact.source(), v1::STATS_SOURCE_SPANS);
  EXPECT_TRUE(exact.percentiles_exact());
  std::map<std::string, v1::OpStats> exact_rows;
  for (const auto& r : exact.rows()) exact_rows[r.key()] = r;
  EXPECT_EQ(rows["sleep_2ms"].count(), 20u);
  EXPECT_EQ(rows["sleep_5ms"].count(), 10u);
  // Sorted by total. Not "sleep_5ms first": on a loaded machine 20 sleeps
  // of 2 ms overshoot to more than 10 of 5 ms.
  for (int i = 1; i < stats.rows_size(); ++i) {
    EXPECT_GE(stats.rows(i - 1).total_ns(), stats.rows(i).total_ns()) << stats.rows(i).key();
  }
  for (auto& [name, d] : durations) {
    if (!rows.count(name)) continue;
    std::sort(d.begin(), d.end());
    const v1::OpStats& r = rows[name];
    uint64_t total = 0;
    for (uint64_t x : d) total += x;
    EXPECT_EQ(r.total_ns(), total) << name;
    EXPECT_EQ(r.min_ns(), d.front());
    EXPECT_EQ(r.max_ns(), d.back());
    // From the aggregates (no filter): within the sketch's error of the
    // nearest rank; --exact's pass over the spans: the nearest rank.
    const uint64_t p50 = d[(d.size() + 1) / 2 - 1];
    EXPECT_EQ(stats.source(), v1::STATS_SOURCE_AGGREGATES);
    EXPECT_NEAR(static_cast<double>(r.p50_ns()), static_cast<double>(p50),
                static_cast<double>(p50) * stats.percentile_relative_error())
        << "nearest rank";
    EXPECT_EQ(exact_rows[name].p50_ns(), p50) << "nearest rank";
    EXPECT_EQ(exact_rows[name].total_ns(), r.total_ns());
    EXPECT_EQ(exact_rows[name].count(), r.count());
    if (name.rfind("sleep_", 0) != 0) continue;  // "start": no known length
    const uint64_t slept = name == "sleep_2ms" ? 2'000'000 : 5'000'000;
    // No upper bound: how much a loaded machine oversleeps is not the
    // daemon's to promise; the figures are checked against the spans above.
    EXPECT_GE(r.min_ns(), slept) << "an op lasts at least what the producer slept in it";
  }
  double share = 0;
  for (const auto& r : stats.rows()) share += r.share();
  EXPECT_NEAR(share, 1.0, 1e-9);
}

TEST_F(ApiTest, CompareSessions_TwoRuns_CountsAndOnlyInOne) {
  Run a = ProduceAndWait({"--ops", "300"});
  Run b = ProduceAndWait({"--sleeps"});
  ASSERT_NE(a.session.id(), 0u) << daemon_.log();
  ASSERT_NE(b.session.id(), 0u) << daemon_.log();
  grpc::ClientContext ctx;
  v1::CompareSessionsRequest req;
  req.set_session_a(a.session.id());
  req.set_session_b(b.session.id());
  v1::CompareSessionsResponse resp;
  ASSERT_TRUE(stub_->CompareSessions(&ctx, req, &resp).ok());
  std::map<std::string, v1::Comparison> rows;
  for (const auto& r : resp.rows()) rows[r.key()] = r;
  EXPECT_EQ(rows["outer"].count_a(), 300u);
  EXPECT_TRUE(rows["outer"].only_in_a());
  EXPECT_EQ(rows["sleep_5ms"].count_b(), 10u);
  EXPECT_TRUE(rows["sleep_5ms"].only_in_b());
  EXPECT_EQ(rows["start"].count_a(), 1u);
  EXPECT_EQ(rows["start"].count_b(), 1u);
}

TEST_F(ApiTest, CompareSessions_FusedTagOfB_FusionOfAsPartsWithQueryOpsTotals) {
  Run a = ProduceAndWait({"--ops", "64"});
  Run b = ProduceAndWait({"--ops", "0", "--tagged", "fused_outer", "shape_1+shape_2"});
  ASSERT_NE(a.session.id(), 0u) << daemon_.log();
  ASSERT_NE(b.session.id(), 0u) << daemon_.log();
  // What A's spans of each part sum to, from QueryOps.
  std::map<std::string, std::pair<uint64_t, uint64_t>> sums;  // tag -> count, total
  for (const v1::Span& span : AllSpans(a.session.id(), 1000)) {
    auto& [count, total] = sums[span.tag()];
    ++count;
    if (span.status() == v1::SPAN_STATUS_OK) total += span.duration_ns();
  }
  grpc::ClientContext ctx;
  v1::CompareSessionsRequest req;
  req.set_session_a(a.session.id());
  req.set_session_b(b.session.id());
  req.set_by(v1::GROUP_BY_TAG);
  v1::CompareSessionsResponse resp;
  ASSERT_TRUE(stub_->CompareSessions(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.fusions_size(), 1);
  const v1::Fusion& fusion = resp.fusions(0);
  EXPECT_EQ(fusion.name(), "fused_outer");
  EXPECT_EQ(fusion.tag(), "shape_1+shape_2");
  EXPECT_EQ(fusion.count_b(), 1u);
  ASSERT_EQ(fusion.parts_size(), 2);
  uint64_t group_count = 0, group_total = 0;
  for (const v1::FusionPart& part : fusion.parts()) {
    EXPECT_EQ(part.name(), "outer");
    EXPECT_EQ(part.count_a(), sums[part.tag()].first) << part.tag();
    EXPECT_EQ(part.total_a_ns(), sums[part.tag()].second) << part.tag();
    group_count += part.count_a();
    group_total += part.total_a_ns();
  }
  EXPECT_EQ(fusion.group_count_a(), group_count);
  EXPECT_EQ(fusion.group_total_a_ns(), group_total);
  EXPECT_EQ(fusion.ops_saved(), static_cast<int64_t>(group_count) - 1);
  EXPECT_EQ(resp.fused_total_a_ns(), group_total);
  // The unfused rows leave the fusion's tags out; the plain rows keep them.
  std::set<std::string> unfused, plain;
  for (const v1::Comparison& row : resp.unfused_rows()) unfused.insert(row.key());
  for (const v1::Comparison& row : resp.rows()) plain.insert(row.key());
  for (const char* tag : {"shape_1", "shape_2", "shape_1+shape_2"}) {
    EXPECT_FALSE(unfused.count(tag)) << tag;
    EXPECT_TRUE(plain.count(tag)) << tag;
  }
  EXPECT_TRUE(unfused.count("shape_3"));
}

TEST_F(ApiTest, ExportChrome_ParsedBack_EveryOpOnce) {
  Run run = ProduceAndWait({"--ops", "200"});
  grpc::ClientContext ctx;
  v1::ExportRequest req;
  req.set_session_id(run.session.id());
  req.set_format(v1::EXPORT_FORMAT_CHROME_JSON);
  auto reader = stub_->Export(&ctx, req);
  v1::ExportChunk chunk;
  std::string data;
  uint64_t announced = 0;
  while (reader->Read(&chunk)) {
    if (data.empty()) announced = chunk.span_count();
    data += chunk.data();
  }
  ASSERT_TRUE(reader->Finish().ok());
  const auto json = nlohmann::json::parse(data);
  size_t complete_events = 0;
  for (const auto& e : json["traceEvents"]) complete_events += e["ph"] == "X";
  EXPECT_EQ(complete_events, DoneCounts(*run.producer).at("launches"));
  EXPECT_EQ(announced, complete_events);
}

TEST_F(ApiTest, BadRequests_EachAnsweredWithTheRightCode) {
  Run run = ProduceAndWait({"--ops", "5"});
  const uint64_t id = run.session.id();
  struct Case {
    const char* what;
    std::function<grpc::Status()> call;
    grpc::StatusCode code;
  };
  auto stats = [&](v1::GetStatsRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      v1::GetStatsResponse resp;
      return stub_->GetStats(&ctx, r, &resp);
    };
  };
  auto level = [&](v1::SetLevelRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      v1::SetLevelResponse resp;
      return stub_->SetLevel(&ctx, r, &resp);
    };
  };
  auto query = [&](v1::QueryOpsRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      auto reader = stub_->QueryOps(&ctx, r);
      v1::QueryOpsResponse c;
      while (reader->Read(&c)) {
      }
      return reader->Finish();
    };
  };
  auto tail = [&](v1::TailRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      auto reader = stub_->Tail(&ctx, r);
      v1::TailResponse item;
      reader->Read(&item);
      return reader->Finish();
    };
  };
  auto compare = [&](v1::CompareSessionsRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      v1::CompareSessionsResponse resp;
      return stub_->CompareSessions(&ctx, r, &resp);
    };
  };
  auto exporter = [&](v1::ExportRequest r) {
    return [this, r] {
      grpc::ClientContext ctx;
      auto reader = stub_->Export(&ctx, r);
      v1::ExportChunk c;
      while (reader->Read(&c)) {
      }
      return reader->Finish();
    };
  };
  v1::GetStatsRequest no_session;
  v1::GetStatsRequest unknown;
  unknown.set_session_id(999999);
  v1::SetLevelRequest no_level;
  v1::SetLevelRequest two_scopes;
  two_scopes.set_level(v1::LEVEL_TRACE);
  two_scopes.set_pid(1);
  two_scopes.set_label("x");
  v1::QueryOpsRequest big_limit;
  big_limit.set_session_id(id);
  big_limit.set_limit(1000000);
  v1::QueryOpsRequest bad_cursor;
  bad_cursor.set_session_id(id);
  bad_cursor.set_cursor("not-a-cursor");
  v1::QueryOpsRequest bad_pattern;
  bad_pattern.set_session_id(id);
  bad_pattern.mutable_filter()->set_name_pattern("(unclosed");
  v1::TailRequest bad_tail;
  bad_tail.set_name_pattern("[z-a]");
  v1::CompareSessionsRequest by_target;
  by_target.set_session_a(id);
  by_target.set_session_b(id);
  by_target.set_by(v1::GROUP_BY_TARGET);
  v1::ExportRequest no_format;
  no_format.set_session_id(id);
  const Case cases[] = {
      {"stats without a session", stats(no_session), grpc::StatusCode::INVALID_ARGUMENT},
      {"stats of an unknown session", stats(unknown), grpc::StatusCode::NOT_FOUND},
      {"set level without a level", level(no_level), grpc::StatusCode::INVALID_ARGUMENT},
      {"set level with two scopes", level(two_scopes), grpc::StatusCode::INVALID_ARGUMENT},
      {"query limit too large", query(big_limit), grpc::StatusCode::INVALID_ARGUMENT},
      {"query with a forged cursor", query(bad_cursor), grpc::StatusCode::INVALID_ARGUMENT},
      {"query with a bad pattern", query(bad_pattern), grpc::StatusCode::INVALID_ARGUMENT},
      {"tail with a bad pattern", tail(bad_tail), grpc::StatusCode::INVALID_ARGUMENT},
      {"compare by target", compare(by_target), grpc::StatusCode::INVALID_ARGUMENT},
      {"export without a format", exporter(no_format), grpc::StatusCode::INVALID_ARGUMENT},
  };
  for (const Case& c : cases) {
    const grpc::Status st = c.call();
    EXPECT_EQ(st.error_code(), c.code) << c.what << ": " << st.error_message();
    EXPECT_FALSE(st.error_message().empty()) << c.what;
  }
  // The daemon is still fine.
  grpc::ClientContext ctx;
  v1::GetStatusResponse status;
  EXPECT_TRUE(stub_->GetStatus(&ctx, v1::GetStatusRequest(), &status).ok());
}

TEST_F(ApiTest, CallerOfAnotherUid_SeesNothingAndIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to call as another uid";
  Run run = ProduceAndWait({"--ops", "5"});
  // Let uid 65534 reach the socket at all: the API must refuse it itself.
  ASSERT_EQ(::chmod(folder_.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod((folder_.path() + "/run").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(daemon_.socket_path().c_str(), 0666), 0);
  // A process of its own (a fork would share this process's connections).
  Subprocess probe({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "probe", daemon_.socket_path(),
                    std::to_string(run.session.id())});
  ASSERT_TRUE(probe.Wait(20s).has_value());
  const std::string expected = "0:0 " + std::to_string(grpc::StatusCode::PERMISSION_DENIED) + " " +
                               std::to_string(grpc::StatusCode::PERMISSION_DENIED) + "\n";
  EXPECT_EQ(probe.stdout_text(), expected)
      << "list: nothing visible; get and global set refused. " << probe.stderr_text();
  // Keeps, windows and listings follow the per-session rule: another
  // uid's session is neither kept, listed, given a window nor shown its
  // source; its owner (root here) keeps it, learns that an ended session's
  // window no longer moves, and reads the listing the producer shipped of
  // its first op's site.
  Subprocess keeps({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    OPTRACE_TEST_CLIENT, "probe-keeps", daemon_.socket_path(),
                    std::to_string(run.session.id())});
  ASSERT_TRUE(keeps.Wait(20s).has_value());
  const std::string denied = std::to_string(grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(keeps.stdout_text(), denied + " " + denied + " " + denied + " " + denied + "\n")
      << keeps.stderr_text();
  Subprocess own({OPTRACE_TEST_CLIENT, "probe-keeps", daemon_.socket_path(),
                  std::to_string(run.session.id())});
  ASSERT_TRUE(own.Wait(20s).has_value());
  EXPECT_EQ(own.stdout_text(),
            "0 0 " + std::to_string(grpc::StatusCode::FAILED_PRECONDITION) + " 0\n")
      << own.stderr_text();
}

}  // namespace
}  // namespace optrace
