// optraced end to end: a real daemon, real producer processes, a real
// SQLite file read back through the storage reader.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "daemon_process.h"
#include "model/span.h"
#include "optrace/abi.h"
#include "producer_report.h"
#include "producer_segment.h"
#include "segment_reading.h"
#include "store_view.h"
#include "string_interner.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::SessionState;
using daemon::Span;
using daemon::SpanStatus;
using testing::DaemonProcess;
using testing::DroppedEvents;
using testing::ParseCounts;
using testing::SegmentExists;
using testing::StartTestProducer;
using testing::StoredSession;
using testing::Subprocess;
using testing::WaitUntil;

// The permission bits of `path`, or -1 when it cannot be stat'ed.
int ModeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
}

// What open(path, O_RDONLY) gives uid and gid 65534 (nobody): 0 when it
// opens, else its errno.
int OpenErrnoAsNobody(const std::string& path) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(255);
    _exit(::open(path.c_str(), O_RDONLY) >= 0 ? 0 : errno);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Events a stored span accounts for.
uint64_t EventsOf(const Span& s) { return s.status == SpanStatus::kOk ? 2 : 1; }

class DaemonTest : public ::testing::Test {
 protected:
  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};

  // Waits until the session of `pid` is stored with an end state and reads
  // it back.
  std::optional<StoredSession> WaitForEnd(uint32_t pid) {
    return testing::WaitForStoredSession(daemon_.db_path(), pid, 20s);
  }
};

TEST_F(DaemonTest, ThreeProducersTwoThreadsEach_EveryOpOneSpanWithPairingParentsTargets) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  std::vector<std::unique_ptr<Subprocess>> producers;
  for (int i = 0; i < 3; ++i) {
    producers.push_back(StartTestProducer({"--threads", "2", "--ops", "3000"},
                                          {{"OPTRACE_SESSION", "run" + std::to_string(i)}}));
  }
  for (auto& p : producers) {
    const auto status = p->Wait(30s);
    ASSERT_TRUE(status && status->exited && status->code == 0) << p->stderr_text();
    const auto done = ParseCounts(p->stdout_text().substr(p->stdout_text().find("done ")));
    const auto session = WaitForEnd(static_cast<uint32_t>(p->pid()));
    ASSERT_TRUE(session.has_value()) << daemon_.log();
    EXPECT_EQ(session->record.state, SessionState::kExited);
    EXPECT_EQ(DroppedEvents(session->record), 0u);
    const std::vector<Span>& spans = session->spans;
    EXPECT_EQ(spans.size(), done.at("launches"));
    EXPECT_EQ(session->record.spans, spans.size());
    EXPECT_EQ(session->record.events, 2 * spans.size());
    std::map<uint64_t, const Span*> by_id;
    for (const Span& s : spans) by_id[s.op_id] = &s;
    size_t inner = 0;
    for (const Span& s : spans) {
      EXPECT_EQ(s.status, SpanStatus::kOk);
      const std::string name = session->Text(s.name);
      if (name != "inner") continue;
      ++inner;
      // Inner ops ran on gpu:1, stream 7, inside an outer op of the same
      // thread that lasted at least as long.
      EXPECT_EQ(s.target, static_cast<uint8_t>(abi::TargetKind::kGpu));
      EXPECT_EQ(s.device, 1);
      EXPECT_EQ(s.stream, 7u);
      const Span* parent = by_id.at(s.parent_op_id);
      EXPECT_EQ(session->Text(parent->name), "outer");
      EXPECT_EQ(parent->launch_tid, s.launch_tid);
      EXPECT_GE(s.start_ns, parent->start_ns);
      EXPECT_LE(s.duration_ns, parent->duration_ns);
    }
    EXPECT_EQ(inner, 2u * 3000);
  }
  EXPECT_EQ(daemon_.Stop(), 0);
}

TEST_F(DaemonTest, ProducerKilledInLongOp_CrashedWithThatOpIncompleteAndEarlierOpsStored) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  auto producer = StartTestProducer({"--ops", "500", "--hold-open", "long_op"});
  const auto holding = producer->WaitForLine("holding=", 20s);
  ASSERT_TRUE(holding.has_value()) << producer->stderr_text();
  const auto counts = ParseCounts("holding=" + *holding);
  std::this_thread::sleep_for(200ms);  // let the daemon see the LAUNCH
  producer->Kill(SIGKILL);
  producer->Wait(10s);
  const auto session = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kCrashed);
  EXPECT_EQ(session->record.open_ops, 1u);
  const std::vector<Span>& spans = session->spans;
  size_t ok = 0;
  const Span* long_op = nullptr;
  for (const Span& s : spans) {
    if (s.status == SpanStatus::kOk) ++ok;
    if (session->Text(s.name) == "long_op") long_op = &s;
  }
  EXPECT_EQ(ok, counts.at("launches"));
  ASSERT_NE(long_op, nullptr);
  EXPECT_EQ(long_op->status, SpanStatus::kIncomplete);
  EXPECT_EQ(long_op->op_id, counts.at("holding"));
  // The crashed producer's segment is removed once its end is stored.
  EXPECT_TRUE(
      WaitUntil([&] { return !SegmentExists(static_cast<uint32_t>(producer->pid())); }, 5s));
}

TEST_F(DaemonTest, DaemonKilledAndRestarted_ProducerKeepsTracing_EveryEventStoredOrCounted) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  auto producer =
      StartTestProducer({"--threads", "2", "--forever"}, {{"OPTRACE_RING_CAPACITY", "4096"}});
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  std::this_thread::sleep_for(300ms);
  daemon_.Kill();
  std::this_thread::sleep_for(300ms);  // the producer fills its rings and drops
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  std::this_thread::sleep_for(300ms);
  producer->Kill(SIGTERM);
  const auto status = producer->Wait(20s);
  ASSERT_TRUE(status && status->exited) << producer->stderr_text();
  const auto done =
      ParseCounts(producer->stdout_text().substr(producer->stdout_text().find("done ")));
  const uint64_t written = done.at("launches") + done.at("completes");
  const auto session = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kExited);
  uint64_t stored = 0;
  for (const Span& s : session->spans) stored += EventsOf(s);
  EXPECT_GT(stored, 0u);
  EXPECT_GT(session->record.dropped_ring_full, 0u) << "the rings overflowed while no daemon ran";
  EXPECT_EQ(session->record.dropped_ring_full, done.at("ring_full"));
  EXPECT_EQ(stored + DroppedEvents(session->record), written)
      << "stored " << stored << " dropped " << DroppedEvents(session->record) << " (restart "
      << session->record.dropped_daemon_restart << ")";
  EXPECT_EQ(daemon_.Stop(), 0);
}

TEST_F(DaemonTest, ProducerStartedBeforeDaemon_EventsIngestedOnceItStarts) {
  auto producer = StartTestProducer({"--threads", "1", "--forever"});
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  std::this_thread::sleep_for(300ms);
  producer->Kill(SIGTERM);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const auto done =
      ParseCounts(producer->stdout_text().substr(producer->stdout_text().find("done ")));
  const auto session = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  uint64_t stored = 0;
  for (const Span& s : session->spans) stored += EventsOf(s);
  EXPECT_EQ(stored + DroppedEvents(session->record), done.at("launches") + done.at("completes"));
  EXPECT_GT(stored, 0u);
}

TEST_F(DaemonTest, ProducerDiedWhileNoDaemonRan_IngestedAtStartAsCrashed) {
  auto producer = StartTestProducer({"--ops", "200", "--hold-open", "last_op"});
  ASSERT_TRUE(producer->WaitForLine("holding=", 20s).has_value());
  producer->Kill(SIGKILL);
  producer->Wait(10s);
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  const auto session = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->record.state, SessionState::kCrashed);
  const std::vector<Span>& spans = session->spans;
  EXPECT_EQ(spans.size(), 2u * 200 + 1 + 1);  // ops, "start", the open last_op
  EXPECT_EQ(session->record.open_ops, 1u);
}

// A segment that the test writes by hand, as a hostile producer would.
class HandMadeSegment {
 public:
  HandMadeSegment() {
    client::ProducerOptions o;
    o.ns = std::getenv("OPTRACE_NAMESPACE");
    o.ring_count = 2;
    o.ring_capacity = 64;
    o.string_slots = 16;
    o.string_blob_bytes = 1024;
    std::string error;
    segment_ = client::ProducerSegment::Create(o, abi::LevelValue::kTrace, abi::LevelValue::kTrace,
                                               &error);
    EXPECT_NE(segment_, nullptr) << error;
  }
  ~HandMadeSegment() {
    if (segment_) segment_->Unlink();
  }
  client::ProducerSegment& segment() { return *segment_; }

 private:
  std::unique_ptr<client::ProducerSegment> segment_;
};

TEST_F(DaemonTest, Malicious_HostileSegmentsBesideHealthyProducer_HealthyIntactHostileReported) {
  HandMadeSegment bad_magic, bad_rings;
  bad_magic.segment().header().magic = 42;
  // Rings that lie: a head far beyond capacity and slots of garbage.
  bad_rings.segment().ring(0).write_pos.store(1'000'000);
  bad_rings.segment().ring(1).write_pos.store(10);
  std::memset(static_cast<void*>(bad_rings.segment().slots(1)), 0xAB, 64 * 10);
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  auto producer = StartTestProducer({"--threads", "2", "--ops", "2000"});
  ASSERT_TRUE(producer->Wait(30s).has_value());
  const auto done =
      ParseCounts(producer->stdout_text().substr(producer->stdout_text().find("done ")));
  const auto session = WaitForEnd(static_cast<uint32_t>(producer->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  EXPECT_EQ(session->spans.size(), done.at("launches"));
  EXPECT_EQ(DroppedEvents(session->record), 0u);
  const std::string log = daemon_.log();
  EXPECT_NE(log.find("rejected segment " + bad_magic.segment().name() + ": segment " +
                     bad_magic.segment().name() + ": magic 0x000000000000002a"),
            std::string::npos)
      << log;
  EXPECT_TRUE(
      WaitUntil([&] { return daemon_.log().find("ABI violations") != std::string::npos; }, 5s))
      << daemon_.log();
  EXPECT_EQ(daemon_.Stop(), 0) << "the daemon survived and stops cleanly";
}

TEST_F(DaemonTest, BadFlagsAndConfig_ClearErrorExit2) {
  const std::string config = folder_.path() + "/bad.toml";
  FILE* f = std::fopen(config.c_str(), "w");
  std::fputs("level = \"loud\"\n", f);
  std::fclose(f);
  Subprocess bad_config({OPTRACED_PATH, "--config", config, "--db", folder_.path() + "/x.db"});
  const auto status = bad_config.Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(bad_config.stderr_text().find("level: 'loud' is not a level"), std::string::npos)
      << bad_config.stderr_text();
  Subprocess bad_level({OPTRACED_PATH, "--level", "noisy", "--db", folder_.path() + "/x.db"});
  ASSERT_TRUE(bad_level.Wait(10s).has_value());
  EXPECT_NE(bad_level.stderr_text().find("--level noisy is not one of"), std::string::npos);
  const std::string labels = folder_.path() + "/labels.toml";
  f = std::fopen(labels.c_str(), "w");
  std::fputs("metrics_labels = [\"name\", \"colour\"]\n", f);
  std::fclose(f);
  Subprocess bad_labels({OPTRACED_PATH, "--config", labels, "--db", folder_.path() + "/x.db",
                         "--socket", folder_.path() + "/run/s.sock"});
  const auto labels_status = bad_labels.Wait(10s);
  ASSERT_TRUE(labels_status.has_value());
  EXPECT_EQ(labels_status->code, 2);
  EXPECT_NE(bad_labels.stderr_text().find("metrics_labels: \"colour\" is not a label (name, "
                                          "target, tag, session, process, pid)"),
            std::string::npos)
      << bad_labels.stderr_text();
}

TEST_F(DaemonTest, Malicious_WorldWritableSocketFolder_RefusesToStart) {
  const std::string run = folder_.path() + "/open";
  ASSERT_EQ(::mkdir(run.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(run.c_str(), 0777), 0);  // whatever the umask
  Subprocess daemon(
      {OPTRACED_PATH, "--db", folder_.path() + "/x.db", "--socket", run + "/optraced.sock"});
  const auto status = daemon.Wait(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(status->code, 0);
  EXPECT_NE(daemon.stderr_text().find("socket folder " + run + " is owned by uid " +
                                      std::to_string(::getuid())),
            std::string::npos)
      << daemon.stderr_text();
  EXPECT_NE(daemon.stderr_text().find("with mode 0777"), std::string::npos) << daemon.stderr_text();
}

// Issue 29 (the database files' modes): whatever umask it starts with, the
// daemon keeps its database, -wal and -shm to its own uid, and makes the
// files of an existing database so when it opens them.
TEST_F(DaemonTest, Malicious_DatabaseFilesUnderUmask0002_OwnerOnlyAndFixedAtOpen) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to try the database as another user";
  ASSERT_EQ(::chmod(folder_.path().c_str(), 0755), 0);  // only the files' modes keep others out
  const std::string db = daemon_.db_path();
  const auto start_under_umask_0002 = [&] {
    const mode_t old = ::umask(0002);
    const bool started = daemon_.Start();
    ::umask(old);
    return started;
  };
  ASSERT_TRUE(start_under_umask_0002()) << daemon_.log();
  for (const std::string& file : {db, db + "-wal", db + "-shm"}) {
    EXPECT_EQ(ModeOf(file), 0600) << file;
  }
  EXPECT_EQ(OpenErrnoAsNobody(db), EACCES);

  daemon_.Kill();  // leaves -wal and -shm behind, as a crash does
  for (const std::string& file : {db, db + "-wal", db + "-shm"}) {
    ASSERT_EQ(::chmod(file.c_str(), 0664), 0) << file << ": " << std::strerror(errno);
  }
  ASSERT_TRUE(start_under_umask_0002()) << daemon_.log();
  for (const std::string& file : {db, db + "-wal", db + "-shm"}) {
    EXPECT_EQ(ModeOf(file), 0600) << file << " of an existing database";
  }
  EXPECT_EQ(OpenErrnoAsNobody(db), EACCES);
}

// The "Max open files" soft and hard limits of process `pid`, as
// /proc/PID/limits writes them ("1024", "unlimited").
std::pair<std::string, std::string> OpenFileLimitsOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(std::strlen("Max open files")));
    std::string soft, hard;
    fields >> soft >> hard;
    return {soft, hard};
  }
  return {};
}

// Issue 29, finding 4: the daemon takes the open files its hard limit
// allows, not the soft limit it was started with.
TEST_F(DaemonTest, SoftFdLimitBelowHard_RaisedToHardAtStart) {
  rlimit ours{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &ours), 0);
  if (ours.rlim_max <= 256) GTEST_SKIP() << "hard limit " << ours.rlim_max << ": nothing to raise";
  const rlimit low{256, ours.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const bool started = daemon_.Start();  // inherits the soft limit of 256
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &ours), 0);
  ASSERT_TRUE(started) << daemon_.log();
  const auto [soft, hard] = OpenFileLimitsOf(daemon_.pid());
  EXPECT_NE(soft, "256");
  EXPECT_EQ(soft, hard);
}

TEST_F(DaemonTest, SecondDaemonSameNamespace_RefusedNamingTheFirst) {
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  Subprocess second({OPTRACED_PATH, "--db", folder_.path() + "/second.db", "--socket",
                     folder_.path() + "/run/optraced.sock"});
  const auto status = second.Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 1);
  EXPECT_NE(second.stderr_text().find("already serves namespace"), std::string::npos)
      << second.stderr_text();
}

}  // namespace
}  // namespace optrace
