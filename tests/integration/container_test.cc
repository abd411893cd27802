// Producers in another PID namespace, as in a container that shares
// /dev/shm but not pids: a real optraced and real producer processes
// started under unshare(1). Their pid means nothing to the daemon; the
// liveness lock on their segment tells it whether they run.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "common/segment_name.h"
#include "daemon_process.h"
#include "producer_report.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::SessionState;
using daemon::SpanStatus;
using testing::DaemonProcess;
using testing::DroppedEvents;
using testing::ParseCounts;
using testing::Subprocess;

// unshare(1) with a PID namespace of its own and a /proc to match, the
// producer its first process; killing unshare kills the producer.
const std::vector<std::string> kInOtherPidNamespace = {"/usr/bin/unshare", "--pid", "--fork",
                                                       "--kill-child", "--mount-proc"};

// Whether this machine lets us make PID namespaces (root, or CAP_SYS_ADMIN).
bool CanMakePidNamespaces() {
  std::vector<std::string> argv = kInOtherPidNamespace;
  argv.push_back("true");
  Subprocess probe(argv);
  const auto status = probe.Wait(10s);
  return status && status->exited && status->code == 0;
}

// optrace-test-producer with `args` in a PID namespace of its own, in
// lossless mode (a full ring waits for the daemon): what it does not
// store was lost by the daemon.
std::unique_ptr<Subprocess> StartInOtherPidNamespace(const std::vector<std::string>& args) {
  std::vector<std::string> argv = kInOtherPidNamespace;
  argv.push_back(testing::TestProducerPath());
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<Subprocess>(
      argv, std::map<std::string, std::string>{{"OPTRACE_LEVEL", "trace"},
                                               {"OPTRACE_RING_CAPACITY", "65536"},
                                               {"OPTRACE_FULL_RING", "wait"}});
}

// The pid in a "segment=<name>" line's name: the producer's own.
uint32_t PidOfSegmentLine(const std::string& name) {
  const auto parsed = SegmentName::Parse(name);
  return parsed ? parsed->pid : 0;
}

class ContainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CanMakePidNamespaces()) {
      GTEST_SKIP() << "unshare --pid is refused here (needs root or CAP_SYS_ADMIN)";
    }
    ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  }

  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};
};

TEST_F(ContainerTest, ProducerInOtherPidNamespace_StoredInFullExitedAndPidUnverified) {
  // Paced (100k ops a second a thread, half a second): what is tested is
  // the namespace, not how fast a drain keeps up (IngestTest's); back to
  // back, a CI machine busy with other tests once let the ring fill.
  auto producer =
      StartInOtherPidNamespace({"--threads", "2", "--ops", "50000", "--rate", "100000"});
  const auto name = producer->WaitForLine("segment=", 20s);
  ASSERT_TRUE(name.has_value()) << producer->stderr_text();
  const uint32_t own_pid = PidOfSegmentLine(*name);
  EXPECT_NE(own_pid, static_cast<uint32_t>(producer->pid())) << "a pid of its own namespace";
  const auto status = producer->Wait(60s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
  const std::string out = producer->stdout_text();
  const auto done = ParseCounts(out.substr(out.find("done ")));

  const auto session = testing::WaitForStoredSession(daemon_.db_path(), own_pid, 20s);
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kExited) << "not taken for dead";
  EXPECT_FALSE(session->record.pid_verified);
  EXPECT_EQ(DroppedEvents(session->record), 0u);
  EXPECT_EQ(done.at("ring_full") + done.at("no_ring") + done.at("no_segment"), 0u);
  EXPECT_EQ(session->spans.size(), done.at("launches")) << "every op stored";
  size_t ok = 0;
  for (const auto& s : session->spans) ok += s.status == SpanStatus::kOk;
  EXPECT_EQ(ok, session->spans.size());
  EXPECT_EQ(daemon_.Stop(), 0);
}

TEST_F(ContainerTest, ProducerInOtherPidNamespaceKilled_CrashedWithItsOpsStored) {
  auto producer = StartInOtherPidNamespace({"--ops", "500", "--hold-open", "long_op"});
  const auto name = producer->WaitForLine("segment=", 20s);
  ASSERT_TRUE(name.has_value()) << producer->stderr_text();
  const auto holding = producer->WaitForLine("holding=", 20s);
  ASSERT_TRUE(holding.has_value()) << producer->stderr_text();
  const auto counts = ParseCounts("holding=" + *holding);
  std::this_thread::sleep_for(1500ms);  // over a liveness poll: the daemon saw it alive
  producer->Kill(SIGKILL);              // unshare --kill-child takes the producer with it
  producer->Wait(10s);

  const auto session =
      testing::WaitForStoredSession(daemon_.db_path(), PidOfSegmentLine(*name), 20s);
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kCrashed);
  EXPECT_FALSE(session->record.pid_verified);
  EXPECT_EQ(session->record.open_ops, 1u);
  size_t ok = 0;
  for (const auto& s : session->spans) ok += s.status == SpanStatus::kOk;
  EXPECT_EQ(ok, counts.at("launches")) << "every op before the kill stored";
  EXPECT_EQ(session->SpanNamed("long_op").status, SpanStatus::kIncomplete);
}

// The control: a producer in the daemon's own PID namespace is verified.
TEST_F(ContainerTest, ProducerInDaemonsPidNamespace_PidVerified) {
  auto producer = testing::StartTestProducer({"--ops", "100"});
  const auto status = producer->Wait(30s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
  const auto session =
      testing::WaitForStoredSession(daemon_.db_path(), static_cast<uint32_t>(producer->pid()), 20s);
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kExited);
  EXPECT_TRUE(session->record.pid_verified);
}

}  // namespace
}  // namespace optrace
