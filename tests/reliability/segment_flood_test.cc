// One uid that makes thousands of producer segments (issue 29, finding 4):
// with the daemon's open-file limit at systemd's default of 1024, it
// attaches max_segments_per_uid of them and counts the rest as waiting,
// keeps answering GetStatus, and another uid's producer is stored exactly.
// Without the per-uid bound the flood's sessions (two descriptors each)
// spend the limit, and the other uid's segment cannot even be opened.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "other_uid_stage.h"
#include "producer_segment.h"
#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t kMaxSegmentsPerUid = 256;  // the default
constexpr rlim_t kFdLimit = 1024;             // systemd's default soft limit

// Creates `count` valid, ready segments of this process (uid and pid) in
// the test namespace, each as small as the ABI allows, and lets go of them
// (unmaps them and drops the liveness lock) without removing them: this
// process still runs, so to a daemon each is a live producer. Returns
// their names.
std::vector<std::string> MakeSegments(int count) {
  client::ProducerOptions options;
  options.ns = TestPolicy().ns;
  options.ring_count = 1;
  options.ring_capacity = abi::kMinRingCapacity;
  options.string_slots = 64;
  options.string_blob_bytes = 4096;
  options.listings = false;
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    std::string error;
    const auto segment = client::ProducerSegment::Create(options, abi::LevelValue::kOff,
                                                         abi::LevelValue::kOff, &error);
    if (segment == nullptr) {
      ADD_FAILURE() << "segment " << i << ": " << error;
      break;
    }
    names.push_back(segment->name());
  }
  return names;
}

// The median of `calls` GetStatus round trips on `stub`, in microseconds;
// counts the calls that failed in `*failed`.
int64_t MedianStatusMicros(v1::OpTrace::Stub& stub, int calls, int* failed) {
  std::vector<int64_t> micros;
  for (int i = 0; i < calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (!DaemonStatus(stub)) ++*failed;
    micros.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count());
  }
  std::nth_element(micros.begin(), micros.begin() + calls / 2, micros.end());
  return micros[calls / 2];
}

uint64_t Counter(const v1::GetStatusResponse& status, const std::string& name) {
  const auto it = status.counters().find(name);
  return it == status.counters().end() ? 0 : it->second;
}

size_t OpenFds(pid_t pid) {
  const std::filesystem::path fds = "/proc/" + std::to_string(pid) + "/fd";
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(fds),
                                           std::filesystem::directory_iterator{}));
}

TEST(SegmentFloodTest, ThousandsOfSegmentsOfOneUidAtFdLimit1024_OtherUidStoredExactly) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a producer as another uid";
  const int flood = Sized(5000, 20000);
  const int calls = 200;
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  const pid_t pid = DaemonPid(daemon);
  ASSERT_GT(pid, 0);
  // Soft and hard: the daemon cannot raise it again.
  const rlimit limit{kFdLimit, kFdLimit};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &limit, nullptr), 0) << std::strerror(errno);
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  int failed = 0;
  const int64_t quiet_micros = MedianStatusMicros(*stub, calls, &failed);

  // The bound's worth of segments first: as many as one uid may have
  // attached, and what they cost GetStatus.
  std::vector<std::string> names = MakeSegments(static_cast<int>(kMaxSegmentsPerUid));
  std::optional<v1::GetStatusResponse> status;
  EXPECT_TRUE(WaitUntil(
      [&] {
        status = DaemonStatus(*stub);
        return status && status->attached_segments() == kMaxSegmentsPerUid;
      },
      60s))
      << (status ? status->DebugString() : "no status");
  const int64_t attached_micros = MedianStatusMicros(*stub, calls, &failed);
  // Then the rest of the flood: each seen, and waiting.
  for (std::string& name : MakeSegments(flood - static_cast<int>(kMaxSegmentsPerUid))) {
    names.push_back(std::move(name));
  }
  ASSERT_EQ(names.size(), static_cast<size_t>(flood));
  EXPECT_TRUE(WaitUntil(
      [&] {
        status = DaemonStatus(*stub);
        return status &&
               Counter(*status, "segments_deferred_uid_cap") == flood - kMaxSegmentsPerUid;
      },
      60s))
      << (status ? status->DebugString() : "no status");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->attached_segments(), kMaxSegmentsPerUid);
  const int64_t flooded_micros = MedianStatusMicros(*stub, calls, &failed);
  const size_t fds = OpenFds(pid);

  // Another uid's producer, beside the flood.
  OtherUidStage stage;
  Subprocess theirs(stage.Command(OPTRACE_LOAD, {"--threads", "2", "--rate", "5000", "--seconds",
                                                 "1"}),
                    {{"OPTRACE_LEVEL", "trace"}});
  const auto exited = theirs.Wait(60s);
  ASSERT_TRUE(exited && exited->exited && exited->code == 0) << theirs.stderr_text();
  StoreView store(daemon.db_path());
  const auto session = store.WaitForEnd(static_cast<uint32_t>(theirs.pid()), 30s);
  ASSERT_TRUE(session.has_value()) << daemon.log();
  EXPECT_EQ(session->uid, kOtherUid);
  const EventBalance balance = BalanceOf(theirs, *session, store);
  EXPECT_GT(balance.written, 0u);
  EXPECT_EQ(balance.stored, balance.written) << "dropped " << balance.dropped;
  EXPECT_EQ(balance.dropped, 0u);

  status = DaemonStatus(*stub);
  ASSERT_TRUE(status.has_value()) << "GetStatus after the flood";
  EXPECT_EQ(status->attached_segments(), kMaxSegmentsPerUid) << "the flood's, still running";
  EXPECT_EQ(status->segments_rejected(), 0u) << "no segment refused for want of descriptors";
  EXPECT_EQ(failed, 0) << "GetStatus calls that failed";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  for (const std::string& name : names) ::unlink(("/dev/shm/" + name).c_str());
  ReportFigure(std::to_string(flood) + " live segments of uid 0 at an open-file limit of " +
               std::to_string(kFdLimit) + ": " + std::to_string(kMaxSegmentsPerUid) +
               " attached, " + std::to_string(Counter(*status, "segments_deferred_uid_cap")) +
               " waiting (segments_deferred_uid_cap), " + std::to_string(fds) +
               " descriptors open; GetStatus median " + std::to_string(quiet_micros) +
               " us with no segment, " + std::to_string(attached_micros) + " us with " +
               std::to_string(kMaxSegmentsPerUid) + " attached, " +
               std::to_string(flooded_micros) + " us with all " + std::to_string(flood) + " (" +
               std::to_string(calls) + " calls each, " +
               std::to_string(failed) + " failed); uid 65534's producer: " +
               std::to_string(balance.written) + " events written, " +
               std::to_string(balance.stored) + " stored, " + std::to_string(balance.dropped) +
               " dropped");
}

}  // namespace
}  // namespace optrace::testing
