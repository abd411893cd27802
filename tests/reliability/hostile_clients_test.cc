// Clients that misbehave (issue 9): a tail client that stops reading,
// clients connecting and disconnecting in a loop, and a flood of malformed
// requests. Throughout, the daemon's memory stays bounded and a
// well-behaved client's calls keep being answered, correctly.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "hostile_requests.h"
#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kRssBoundKib = 200 << 10;

// A well-behaved client on a connection of its own, on a thread of its
// own: every 50 ms it samples the daemon's RSS and checks that GetStatus
// and GetSession of a stored session answer, and answer what they should.
class DaemonWatch {
 public:
  // `pid` and `socket_path` are the daemon's; `session` is a stored, ended
  // session of `events` events.
  DaemonWatch(pid_t pid, const std::string& socket_path, uint64_t session, uint64_t events)
      : pid_(pid),
        session_(session),
        events_(events),
        stub_(v1::OpTrace::NewStub(NewConnection(socket_path))),
        thread_([this] { Run(); }) {}
  ~DaemonWatch() { Stop(); }
  DaemonWatch(const DaemonWatch&) = delete;
  DaemonWatch& operator=(const DaemonWatch&) = delete;

  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  // REQUIRES: Stop() was called (the figures are the watch thread's).
  uint64_t peak_rss_kib() const { return peak_rss_kib_; }
  int rounds() const { return rounds_; }
  int failures() const { return failures_; }
  const std::string& first_failure() const { return first_failure_; }
  std::chrono::milliseconds slowest() const { return slowest_; }

 private:
  void Run() {
    const std::string ns = std::getenv("OPTRACE_NAMESPACE");
    while (!stop_.load()) {
      peak_rss_kib_ = std::max(peak_rss_kib_, ResidentKib(pid_));
      const auto start = std::chrono::steady_clock::now();
      const auto status = DaemonStatus(*stub_);
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + 2s);
      v1::GetSessionRequest request;
      request.set_session_id(session_);
      v1::GetSessionResponse session;
      const grpc::Status got = stub_->GetSession(&ctx, request, &session);
      slowest_ = std::max(slowest_, std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now() - start));
      ++rounds_;
      std::string failure;
      if (!status || status->namespace_() != ns) failure = "GetStatus failed or wrong namespace";
      if (!got.ok()) failure = "GetSession: " + got.error_message();
      if (got.ok() && session.session().events() != events_) {
        failure = "GetSession: events " + std::to_string(session.session().events()) + ", stored " +
                  std::to_string(events_);
      }
      if (!failure.empty() && failures_++ == 0) first_failure_ = failure;
      std::this_thread::sleep_for(50ms);
    }
  }

  const pid_t pid_;
  const uint64_t session_;
  const uint64_t events_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
  std::atomic<bool> stop_{false};
  // Written by the watch thread only; read after Stop().
  uint64_t peak_rss_kib_ = 0;
  int rounds_ = 0;
  int failures_ = 0;
  std::string first_failure_;
  std::chrono::milliseconds slowest_{0};
  std::thread thread_;  // last: starts once everything above exists
};

// One client that connects, makes one call and goes: every tenth a process
// of its own (optrace-test-client probe), the others in-process channels
// on new connections, alternating GetStatus, a Tail read until its first
// item, and ListSessions. Returns false, with `why`, when the call failed.
bool ConnectCallDisconnect(int i, const std::string& socket_path, uint64_t session,
                           std::string* why) {
  if (i % 10 == 9) {
    Subprocess probe({OPTRACE_TEST_CLIENT, "probe", socket_path, std::to_string(session)});
    const auto status = probe.Wait(20s);
    *why = "probe: " + probe.stdout_text() + probe.stderr_text();
    // "<list code>:<seen> <get code> <set code>": all three answered OK.
    return status && status->exited && probe.stdout_text().rfind("0:", 0) == 0 &&
           probe.stdout_text().find(" 0 0\n") != std::string::npos;
  }
  auto stub = v1::OpTrace::NewStub(NewConnection(socket_path));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 5s);
  grpc::Status status;
  switch (i % 3) {
    case 0: {
      v1::GetStatusResponse response;
      status = stub->GetStatus(&ctx, v1::GetStatusRequest(), &response);
      break;
    }
    case 1: {
      auto stream = stub->Tail(&ctx, v1::TailRequest());
      v1::TailResponse item;
      if (stream->Read(&item)) {
        ctx.TryCancel();
        return true;
      }
      status = stream->Finish();
      break;
    }
    default: {
      v1::ListSessionsResponse response;
      status = stub->ListSessions(&ctx, v1::ListSessionsRequest(), &response);
    }
  }
  *why = "call " + std::to_string(i % 3) + ": " + status.error_message();
  return status.ok();
}

TEST(HostileClientsTest, StalledTailChurnAndMalformedFlood_MemoryBoundedOtherClientAnswered) {
  const int churn = Sized(100, 1000);
  const int garbage = Sized(2000, 20000);
  const int well_formed = Sized(2000, 20000);
  const unsigned seed = TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  // A stored session the watch asks for all along.
  auto known = StartTestProducer({"--ops", "1000"});
  ASSERT_TRUE(known->Wait(30s).has_value());
  StoreView store(daemon.db_path());
  const auto known_session = store.WaitForEnd(static_cast<uint32_t>(known->pid()), 20s);
  ASSERT_TRUE(known_session.has_value()) << daemon.log();
  const uint64_t baseline_kib = ResidentKib(pid);
  DaemonWatch watch(pid, daemon.socket_path(), known_session->id, known_session->events);
  // Events flow all along, for the tails; the load is killed at the end.
  auto load = StartLoadProducer(1, 20000, 600);
  // The stalled tail: a client process that is stopped once it streams.
  Subprocess stalled({OPTRACE_TEST_CLIENT, "tail", daemon.socket_path()});
  ASSERT_TRUE(stalled.WaitForLine("streaming", 10s).has_value()) << stalled.stderr_text();
  ASSERT_TRUE(stalled.WaitForLine("event ", 10s).has_value()) << "the tail streams";
  stalled.Kill(SIGSTOP);

  int churn_failures = 0;
  std::string first_churn_failure;
  for (int i = 0; i < churn; ++i) {
    std::string why;
    if (!ConnectCallDisconnect(i, daemon.socket_path(), known_session->id, &why) &&
        churn_failures++ == 0) {
      first_churn_failure = why;
    }
  }
  EXPECT_EQ(churn_failures, 0) << first_churn_failure;
  const uint64_t after_churn_kib = ResidentKib(pid);

  HostileRequests requests(seed);
  const auto flood = NewConnection(daemon.socket_path());
  const auto garbage_codes = SendAll(flood, garbage, 16, 1s, [&] { return requests.Garbage(); });
  const uint64_t after_garbage_kib = ResidentKib(pid);
  const auto well_formed_codes =
      SendAll(flood, well_formed, 16, 1s, [&] { return requests.WellFormed(); });
  const uint64_t after_well_formed_kib = ResidentKib(pid);
  // Parsed requests are answered by the service itself: never with an
  // internal error, an exception (UNKNOWN) or a dead server.
  for (const grpc::StatusCode bad :
       {grpc::UNKNOWN, grpc::INTERNAL, grpc::UNAVAILABLE, grpc::DATA_LOSS}) {
    EXPECT_EQ(well_formed_codes.count(bad), 0u) << CodesText(well_formed_codes);
  }
  EXPECT_EQ(garbage_codes.count(grpc::UNAVAILABLE), 0u) << CodesText(garbage_codes);

  // The tails of the churn and the flood are gone; only the stalled one
  // may still be there.
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  std::optional<v1::GetStatusResponse> status;
  EXPECT_TRUE(WaitUntil(
      [&] {
        status = DaemonStatus(*stub);
        return status && status->tails() <= 1;
      },
      20s))
      << "tails still open: " << (status ? status->tails() : 0);
  watch.Stop();
  stalled.Kill(SIGKILL);
  load->Kill(SIGKILL);
  EXPECT_EQ(watch.failures(), 0) << watch.first_failure();
  EXPECT_GT(watch.rounds(), 10);
  EXPECT_LT(watch.peak_rss_kib(), kRssBoundKib);
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure("RSS MiB: start " + std::to_string(baseline_kib >> 10) + ", after churn " +
               std::to_string(after_churn_kib >> 10) + ", after garbage " +
               std::to_string(after_garbage_kib >> 10) + ", after well-formed " +
               std::to_string(after_well_formed_kib >> 10) + ", peak " +
               std::to_string(watch.peak_rss_kib() >> 10) + " (bound " +
               std::to_string(kRssBoundKib >> 10) + "); 1 stalled tail, " + std::to_string(churn) +
               " clients connected and left (" + std::to_string(churn_failures) + " failed), " +
               std::to_string(garbage) + " garbage requests {" + CodesText(garbage_codes) + "}, " +
               std::to_string(well_formed) + " hostile well-formed requests {" +
               CodesText(well_formed_codes) + "}; other client: " + std::to_string(watch.rounds()) +
               " rounds, " + std::to_string(watch.failures()) + " failed, slowest " +
               std::to_string(watch.slowest().count()) + " ms; seed " + std::to_string(seed));
}

// Tail parses its request itself (it is served raw): bytes that are not a
// TailRequest are refused with a message that says so, and the daemon
// serves the next tail as before.
TEST(HostileClientsTest, TailRequestThatDoesNotParse_InvalidArgumentThenTailsServed) {
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const auto channel = NewConnection(daemon.socket_path());
  const std::string tail = std::string("/") + v1::OpTrace::service_full_name() + "/Tail";
  // A truncated varint, a field of wire type 7, a length past the end.
  for (const std::string bytes : {"\xff\xff\xff", "\x0f",
                                  "\x22\x50"
                                  "ab"}) {
    const auto codes = SendAll(channel, 1, 1, 5s, [&] { return RawRequest{tail, bytes}; });
    EXPECT_EQ(codes.size(), 1u) << CodesText(codes);
    EXPECT_EQ(codes.count(grpc::INVALID_ARGUMENT), 1u) << CodesText(codes);
  }
  v1::TailRequest request;
  request.set_level(v1::LEVEL_TRACE);
  request.set_events(true);
  const auto codes = SendAll(channel, 1, 1, 1s, [&] {
    RawRequest valid{tail, ""};
    request.SerializeToString(&valid.bytes);
    return valid;
  });
  EXPECT_EQ(codes.count(grpc::DEADLINE_EXCEEDED), 1u)
      << "a valid tail streams until its deadline: " << CodesText(codes);
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
}

}  // namespace
}  // namespace optrace::testing
