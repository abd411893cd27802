// Many producer processes of 4 threads each, tracing at the same time
// (issue 9): every session is stored and ended, and for each one what the
// producer wrote equals what the daemon stored plus what was counted as
// dropped. Every other producer has a ring fewer than it has threads, so
// that there are drops to count.
#include <gtest/gtest.h>

#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

TEST(ManyProducersTest, FourThreadsEachAllAtOnce_EverySessionStoredEndedAndBalanced) {
  // 64 at once in CI too; the soak runs them longer and faster.
  const int count = 64;
  const int pairs_per_second = Sized(4000, 20000);
  const double seconds = Sized(3, 10);
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  std::vector<std::unique_ptr<Subprocess>> producers;
  for (int i = 0; i < count; ++i) {
    // 4 rings of 4096 events each (1.6 MiB a segment); with 3, one thread
    // has none for the whole run (dropped_no_ring).
    producers.push_back(StartLoadProducer(4, pairs_per_second, seconds,
                                          {{"OPTRACE_RING_CAPACITY", "4096"},
                                           {"OPTRACE_RING_COUNT", i % 2 == 0 ? "4" : "3"},
                                           {"OPTRACE_SESSION", "many" + std::to_string(i)}}));
  }
  // How many run at once, as the daemon sees them.
  uint32_t peak_running = 0;
  WaitUntil(
      [&] {
        const auto status = DaemonStatus(*stub);
        if (status) peak_running = std::max(peak_running, status->running_sessions());
        return peak_running == static_cast<uint32_t>(count);
      },
      std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  EXPECT_EQ(peak_running, static_cast<uint32_t>(count)) << "the producers all ran at once";
  StoreView store(daemon.db_path());
  EventBalance total;
  daemon::SessionRecord drops;
  int ended = 0;
  for (auto& p : producers) {
    const auto status = p->Wait(std::chrono::milliseconds(static_cast<int>(seconds * 1000)) + 60s);
    ASSERT_TRUE(status && status->exited && status->code == 0) << p->stderr_text();
    const auto session = store.WaitForEnd(static_cast<uint32_t>(p->pid()), 60s);
    ASSERT_TRUE(session.has_value()) << "pid " << p->pid() << "\n" << daemon.log();
    ended += session->state == daemon::SessionState::kExited;
    EXPECT_EQ(session->state, daemon::SessionState::kExited) << "pid " << p->pid();
    const EventBalance b = BalanceOf(*p, *session, store);
    EXPECT_EQ(b.unaccounted(), 0) << "pid " << p->pid() << ": written " << b.written << " stored "
                                  << b.stored << " dropped " << b.dropped;
    total.written += b.written;
    total.stored += b.stored;
    total.dropped += b.dropped;
    drops.dropped_ring_full += session->dropped_ring_full;
    drops.dropped_no_ring += session->dropped_no_ring;
    drops.dropped_shed += session->dropped_shed;
    drops.dropped_invalid += session->dropped_invalid;
  }
  EXPECT_GT(drops.dropped_no_ring, 0u) << "the producers with 3 rings had a thread without one";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure(
      std::to_string(count) + " producers x 4 threads at " + std::to_string(pairs_per_second) +
      " pairs/s, " + std::to_string(peak_running) + " running at once for " +
      std::to_string(static_cast<int>(seconds)) + " s: " + std::to_string(ended) +
      " sessions ended; written " + std::to_string(total.written) + " = stored " +
      std::to_string(total.stored) + " + dropped " + std::to_string(total.dropped) +
      " (ring_full " + std::to_string(drops.dropped_ring_full) + ", no_ring " +
      std::to_string(drops.dropped_no_ring) + ", shed " + std::to_string(drops.dropped_shed) +
      ", invalid " + std::to_string(drops.dropped_invalid) + "); unaccounted " +
      std::to_string(total.unaccounted()));
}

}  // namespace
}  // namespace optrace::testing
