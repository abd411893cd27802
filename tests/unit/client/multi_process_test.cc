// Real producer processes (fork/exec of optrace-test-producer) and this
// process as the consumer: concurrency across processes, SIGKILL mid-stream,
// the stderr sink and the environment.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <regex>
#include <set>
#include <thread>

#include "common/segment_name.h"
#include "optrace/reader/string_table_reader.h"
#include "producer_report.h"
#include "segment_reading.h"
#include "subprocess.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::ParseCounts;
using testing::StartTestProducer;

TEST(MultiProcessTest, ConcurrentProducerProcess_FourThreads_EveryEventReadOrCountedDropped) {
  auto producer = StartTestProducer({"--threads", "4", "--ops", "50000", "--wait-stdin"},
                                    {{"OPTRACE_RING_CAPACITY", "1024"}});
  const auto name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(name.has_value()) << producer->stderr_text();
  auto seg = testing::AttachOrFail(*name);
  ASSERT_NE(seg, nullptr);
  reader::SegmentDrainer drainer(*seg);
  reader::ReaderStats stats;
  std::vector<abi::OpEvent> events;
  producer->WriteStdin("go\n");
  std::optional<std::string> done;
  while (!(done = producer->WaitForLine("done ", 1ms))) {
    drainer.Drain(1 << 16, reader::DrainMode::kLive, testing::MonotonicNowNs(), &events, &stats);
  }
  ASSERT_TRUE(producer->Wait(10s).has_value());
  auto rest = testing::DrainAll(drainer, reader::DrainMode::kFinal, &stats);
  events.insert(events.end(), rest.begin(), rest.end());

  const auto counts = ParseCounts(*done);
  const uint64_t written = counts.at("launches") + counts.at("completes");
  EXPECT_EQ(written, 2u * (4 * 50000 * 2 + 1));
  EXPECT_EQ(stats.events_dropped_ring_full, counts.at("ring_full"));
  EXPECT_EQ(stats.events_read + stats.events_dropped_ring_full + stats.events_dropped_no_ring,
            written)
      << "every event is read or counted as dropped";
  EXPECT_EQ(stats.Violations(), 0u);

  // Pairing and parents of what was read: an inner op's parent is the
  // outer op of the same iteration on the same thread.
  std::map<uint64_t, abi::OpEvent> launches;
  std::set<uint64_t> completes;
  for (const auto& e : events) {
    if (e.kind == static_cast<uint8_t>(abi::EventKind::kLaunch)) {
      EXPECT_TRUE(launches.emplace(e.op_id, e).second) << "duplicate LAUNCH " << e.op_id;
    } else {
      EXPECT_TRUE(completes.insert(e.op_id).second) << "duplicate COMPLETE " << e.op_id;
    }
  }
  size_t parents_checked = 0;
  for (const auto& [id, e] : launches) {
    if (e.target_kind != static_cast<uint8_t>(abi::TargetKind::kGpu)) continue;  // inner ops
    auto parent = launches.find(e.parent_op_id);
    if (parent == launches.end()) continue;  // the parent's LAUNCH was dropped
    EXPECT_EQ(parent->second.thread_id, e.thread_id);
    EXPECT_EQ(parent->second.target_kind, static_cast<uint8_t>(abi::TargetKind::kCpu));
    ++parents_checked;
  }
  EXPECT_GT(parents_checked, 1000u);
}

TEST(MultiProcessTest, ProducerKilledMidStream_EveryPublishedEventReadsBackIntact) {
  auto producer =
      StartTestProducer({"--threads", "2", "--forever"}, {{"OPTRACE_RING_CAPACITY", "4096"}});
  const auto name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(name.has_value()) << producer->stderr_text();
  ASSERT_TRUE(producer->WaitForLine("ready", 10s).has_value());
  std::this_thread::sleep_for(50ms);
  producer->Kill(SIGKILL);
  const auto status = producer->Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->signal, SIGKILL);

  // The killed producer leaves its segment behind: everything it published
  // must read back with valid stamps and fields.
  auto seg = testing::AttachOrFail(*name);
  ASSERT_NE(seg, nullptr);
  EXPECT_EQ(seg->CheckLiveness(), reader::ProducerLiveness::kGone);
  const auto fields = seg->ReadProducerFields();
  ASSERT_TRUE(fields.has_value());
  EXPECT_EQ(fields->exit_state, abi::ExitState::kRunning) << "no clean exit after SIGKILL";
  uint64_t published = 0;
  for (uint32_t i = 0; i < seg->geometry().ring_count; ++i) {
    const auto* ring =
        reinterpret_cast<const abi::RingHeader*>(seg->base() + seg->geometry().rings_offset) + i;
    published += ring->write_pos.load() - ring->read_pos.load();
  }
  reader::SegmentDrainer drainer(*seg);
  reader::ReaderStats stats;
  const auto events = testing::DrainAll(drainer, reader::DrainMode::kFinal, &stats);
  EXPECT_EQ(events.size(), published);
  EXPECT_GT(published, 0u);
  EXPECT_EQ(stats.Violations(), 0u);
  reader::StringTableReader strings(*seg);
  const std::set<std::string> known = {"start", "outer", "inner"};
  for (const auto& e : events) {
    ASSERT_TRUE(known.count(strings.Get(e.name_id, &stats))) << strings.Get(e.name_id, &stats);
  }
  seg->Unlink();
}

TEST(MultiProcessTest, StderrSink_TraceLevel_EveryLineInTheDesignFormat) {
  auto producer = StartTestProducer({"--ops", "100"}, {{"OPTRACE_SINK", "stderr"}});
  const auto status = producer->Wait(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0);
  const std::regex format(
      R"(^\[OP\] (LAUNCH|COMPLETE) (start|outer|inner) \[id=(\d+)\] target=(cpu|gpu):\d+$)");
  std::map<std::string, int> per_id;
  const auto lines = testing::SplitLines(producer->stderr_text());
  for (const auto& line : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, format)) << line;
    per_id[m[3]] += m[1] == "LAUNCH" ? 1 : 10;
  }
  EXPECT_EQ(lines.size(), 2u * (2 * 100 + 1));
  for (const auto& [id, v] : per_id) EXPECT_EQ(v, 11) << "one LAUNCH and one COMPLETE for " << id;
  EXPECT_NE(producer->stderr_text().find("[OP] LAUNCH inner [id="), std::string::npos);
  EXPECT_NE(producer->stderr_text().find("target=gpu:1"), std::string::npos);
}

TEST(MultiProcessTest, EnvLevel_Invalid_WarnsOnceAndStaysOff) {
  auto producer = StartTestProducer({"--ops", "10"}, {{"OPTRACE_LEVEL", "loud"}});
  ASSERT_TRUE(producer->Wait(20s).has_value());
  EXPECT_NE(producer->stderr_text().find("OPTRACE_LEVEL=loud is not one of off, error"),
            std::string::npos)
      << producer->stderr_text();
  const auto done = producer->stdout_text().substr(producer->stdout_text().find("done "));
  EXPECT_EQ(ParseCounts(done).at("launches"), 0u);
}

TEST(MultiProcessTest, NoDaemon_CleanExit_SegmentRemoved) {
  auto producer = StartTestProducer({"--ops", "10"});
  const auto name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(name.has_value());
  ASSERT_TRUE(producer->Wait(20s).has_value());
  EXPECT_NE(::access((std::string(kShmFolder) + "/" + *name).c_str(), F_OK), 0)
      << "a segment nobody will ever drain is removed at exit";
}

// Publishes a daemon control segment for this test's namespace, as a daemon
// with a live tail at `level` would, with this process as the daemon.
class FakeControlSegment {
 public:
  // `owner`: the uid in the name and the file's owner (changing it needs root).
  explicit FakeControlSegment(abi::LevelValue level, uint32_t owner = ::getuid()) {
    path_ = std::string(kShmFolder) + "/" + ControlSegmentName(testing::TestPolicy().ns, owner);
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, abi::kControlBytes), 0);
    void* p = ::mmap(nullptr, abi::kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    auto* block = static_cast<abi::ControlBlock*>(p);
    block->magic = abi::kControlMagic;
    block->abi_major = abi::kAbiMajor;
    block->control_bytes = sizeof(abi::ControlBlock);
    block->daemon_pid = static_cast<uint32_t>(::getpid());
    block->daemon_uid = static_cast<uint32_t>(::getuid());
    block->default_level.store(static_cast<uint32_t>(level));
    ::munmap(p, abi::kControlBytes);
    if (owner != ::getuid()) {
      EXPECT_EQ(::fchown(fd, owner, owner), 0);
    }
    ::close(fd);
  }
  ~FakeControlSegment() { ::unlink(path_.c_str()); }

 private:
  std::string path_;
};

TEST(MultiProcessTest, DaemonControlSegmentAtTrace_NewProducerTracedFromFirstOp) {
  FakeControlSegment control(abi::LevelValue::kTrace);
  auto producer = StartTestProducer({"--ops", "10"}, {{"OPTRACE_LEVEL", ""}});
  const auto name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(name.has_value());
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const auto done = producer->stdout_text().substr(producer->stdout_text().find("done "));
  EXPECT_EQ(ParseCounts(done).at("launches"), 21u) << "the first op is traced too";
  // A daemon serves the namespace, so the segment is left for it to drain.
  const std::string path = std::string(kShmFolder) + "/" + *name;
  EXPECT_EQ(::access(path.c_str(), F_OK), 0);
  ::unlink(path.c_str());
}

// Launches a quiet producer and returns how many ops it traced.
uint64_t LaunchesOfQuietProducer() {
  auto producer = StartTestProducer({"--ops", "10"}, {{"OPTRACE_LEVEL", ""}});
  if (!producer->Wait(20s)) return 0;
  const auto& out = producer->stdout_text();
  const size_t at = out.find("done ");
  return at == std::string::npos ? 0 : ParseCounts(out.substr(at)).at("launches");
}

TEST(MultiProcessTest, ControlSegmentOfSystemAccount_Trusted_OfOtherUser_Ignored) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to own files as other uids";
  {
    // A service running as a system account (e.g. the optrace user).
    FakeControlSegment system_daemon(abi::LevelValue::kTrace, 998);
    EXPECT_EQ(LaunchesOfQuietProducer(), 21u);
  }
  {
    // Another ordinary user cannot make our producers trace.
    FakeControlSegment other_user(abi::LevelValue::kTrace, 1500);
    EXPECT_EQ(LaunchesOfQuietProducer(), 0u);
  }
}

TEST(MultiProcessTest, Malicious_ControlSegmentWithBadMagic_Ignored) {
  const std::string path =
      std::string(kShmFolder) + "/" +
      ControlSegmentName(testing::TestPolicy().ns, static_cast<uint32_t>(::getuid()));
  {
    FakeControlSegment control(abi::LevelValue::kTrace);
    const int fd = ::open(path.c_str(), O_RDWR);
    const uint64_t junk = 0xdeadbeef;
    ASSERT_EQ(::pwrite(fd, &junk, sizeof junk, 0), static_cast<ssize_t>(sizeof junk));
    ::close(fd);
    auto producer = StartTestProducer({"--ops", "10"}, {{"OPTRACE_LEVEL", ""}});
    ASSERT_TRUE(producer->Wait(20s).has_value());
    const auto done = producer->stdout_text().substr(producer->stdout_text().find("done "));
    EXPECT_EQ(ParseCounts(done).at("launches"), 0u);
  }
}

}  // namespace
}  // namespace optrace
