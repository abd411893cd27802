// The liveness lock (ABI minor 4) through real producer processes: held
// while the producer runs, free once it is gone even while a fork child of
// it lives on; a pid is verified only as the producer's own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "common/process_info.h"
#include "common/producer_lock.h"
#include "common/segment_name.h"
#include "segment_reading.h"
#include "subprocess.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::StartTestProducer;

// Probes the lock of segment `name` through a descriptor of our own.
ProducerLockState ProbeByName(const std::string& name) {
  const int fd = ::open(("/dev/shm/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ProducerLockState::kUnknown;
  const ProducerLockState state = ProbeProducerLock(fd);
  ::close(fd);
  return state;
}

TEST(ProducerLivenessTest, RealProducer_LockHeldWhileItRuns_FreeAfterItsForkChildOutlivesIt) {
  auto producer = StartTestProducer({"--ops", "10", "--wait-stdin", "--fork-child"});
  const auto name = producer->WaitForLine("segment=", 10s);
  ASSERT_TRUE(name.has_value()) << producer->stderr_text();
  auto seg = testing::AttachOrFail(*name);
  ASSERT_NE(seg, nullptr);
  EXPECT_EQ(seg->geometry().liveness, abi::LivenessSignal::kSegmentLock);
  EXPECT_TRUE(seg->geometry().pid_verified);
  EXPECT_EQ(seg->CheckLiveness(), reader::ProducerLiveness::kAlive);
  EXPECT_EQ(ProbeByName(*name), ProducerLockState::kHeld);
  // As a daemon would: the producer then leaves its segment at exit.
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  ASSERT_TRUE(seg->WriteDaemonPresence(static_cast<uint32_t>(::getpid()),
                                       static_cast<uint64_t>(now.tv_sec) * 1'000'000'000));
  producer->WriteStdin("go\n");
  const auto child = producer->WaitForLine("child=", 10s);
  ASSERT_TRUE(child.has_value()) << producer->stderr_text();
  const auto status = producer->Wait(10s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
  const pid_t child_pid = std::stoi(*child);
  EXPECT_EQ(::kill(child_pid, 0), 0) << "the child outlives the producer";
  EXPECT_EQ(ProbeByName(*name), ProducerLockState::kFree) << "the child closed its copy";
  EXPECT_EQ(seg->CheckLiveness(), reader::ProducerLiveness::kGone);
  ::kill(child_pid, SIGKILL);
  seg->Unlink();
}

TEST(ProducerLivenessTest, PidRunsAsRecorded_OnlyTheProducersOwnProcess) {
  reader::SegmentGeometry own;
  own.name =
      SegmentName{"t", static_cast<uint32_t>(::getuid()), static_cast<uint32_t>(::getpid()), 1};
  own.process_start_ticks = ProcessStartTicks(::getpid()).value_or(0);
  ASSERT_NE(own.process_start_ticks, 0u);
  EXPECT_TRUE(reader::PidRunsAsRecorded(own));

  reader::SegmentGeometry reused = own;
  reused.process_start_ticks += 1;  // another process under the same pid
  EXPECT_FALSE(reader::PidRunsAsRecorded(reused));

  // A live process of another user: pid 1 when we are not root, else a
  // child that became nobody.
  pid_t other = 1;
  if (::getuid() == 0) {
    other = ::fork();
    if (other == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(1);
      while (true) ::pause();
    }
    for (int i = 0; i < 200 && ProcessRealUid(other) != 65534u; ++i) ::usleep(5000);
  }
  reader::SegmentGeometry claimed = own;
  claimed.name.pid = static_cast<uint32_t>(other);
  claimed.process_start_ticks = ProcessStartTicks(other).value_or(0);
  EXPECT_NE(ProcessRealUid(other), std::optional<uint32_t>(::getuid()));
  EXPECT_FALSE(reader::PidRunsAsRecorded(claimed)) << "another user's process is not ours";
  if (other != 1) ::kill(other, SIGKILL);
}

}  // namespace
}  // namespace optrace
