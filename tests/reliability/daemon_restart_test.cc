// The daemon SIGKILLed and started again, over and over, while producers
// trace at a steady rate (issue 9): once they end, every event each of them
// wrote is stored or counted as dropped, exactly.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(DaemonRestartTest, KilledAndRestartedUnderLoad_WrittenEqualsStoredPlusDroppedExactly) {
  const int restarts = 20;
  const unsigned seed = TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  // Paced producers with rings of different sizes, tracing through every
  // kill: while no daemon runs, the small rings overflow (dropped_ring_full)
  // and the large ones keep what a restarted daemon must find again; the
  // fast one keeps its small rings more than half full, so the daemon
  // releases slots before their batch commits and a kill loses them
  // (dropped_daemon_restart).
  const double seconds = 1.6 * restarts + 3;
  const Clock::time_point loads_end =
      Clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
  std::vector<std::unique_ptr<Subprocess>> producers;
  for (const char* capacity : {"4096", "16384", "65536"}) {
    producers.push_back(
        StartLoadProducer(2, 20000, seconds, {{"OPTRACE_RING_CAPACITY", capacity}}));
  }
  producers.push_back(StartLoadProducer(1, 200000, seconds, {{"OPTRACE_RING_CAPACITY", "1024"}}));
  int kills = 0;
  int ended_while_down = 0;
  for (; kills < restarts && !::testing::Test::HasFatalFailure(); ++kills) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 750)(random)));
    // A short producer, attached when the daemon dies, that ends about
    // 150 ms later: often while no daemon runs. Its segment must wait for
    // the next daemon.
    auto short_lived = StartLoadProducer(1, 20000, 0.2, {{"OPTRACE_RING_CAPACITY", "16384"}});
    std::this_thread::sleep_for(250ms);
    daemon.Kill();
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 400)(random)));
    ended_while_down += short_lived->Wait(0ms).has_value();
    producers.push_back(std::move(short_lived));
    ASSERT_TRUE(daemon.Start()) << "restart " << kills + 1 << ": " << daemon.log();
  }
  ASSERT_LT(Clock::now() + 500ms, loads_end)
      << "the restarts took longer than the producers trace; raise their --seconds";
  StoreView store(daemon.db_path());
  EventBalance total;
  uint64_t restart_losses = 0, ring_full = 0;
  for (auto& p : producers) {
    ASSERT_TRUE(
        p->Wait(std::chrono::milliseconds(static_cast<int>(seconds * 1000)) + 30s).has_value());
    const auto session = store.WaitForEnd(static_cast<uint32_t>(p->pid()), 20s);
    ASSERT_TRUE(session.has_value()) << daemon.log();
    EXPECT_EQ(session->state, daemon::SessionState::kExited);
    const EventBalance b = BalanceOf(*p, *session, store);
    EXPECT_EQ(b.unaccounted(), 0) << "pid " << p->pid() << ": written " << b.written << " stored "
                                  << b.stored << " dropped " << b.dropped << " (restart "
                                  << session->dropped_daemon_restart << ", ring full "
                                  << session->dropped_ring_full << ", shed "
                                  << session->dropped_shed << ", invalid "
                                  << session->dropped_invalid << ")";
    total.written += b.written;
    total.stored += b.stored;
    total.dropped += b.dropped;
    restart_losses += session->dropped_daemon_restart;
    ring_full += session->dropped_ring_full;
  }
  EXPECT_GT(total.stored, 0u);
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure(
      std::to_string(kills) + " daemon kills under " + std::to_string(producers.size()) +
      " producers (" + std::to_string(ended_while_down) + " ended while no daemon ran): written " +
      std::to_string(total.written) + " = stored " + std::to_string(total.stored) + " + dropped " +
      std::to_string(total.dropped) + " (daemon_restart " + std::to_string(restart_losses) +
      ", ring_full " + std::to_string(ring_full) + "); unaccounted " +
      std::to_string(total.unaccounted()) + "; seed " + std::to_string(seed));
}

}  // namespace
}  // namespace optrace::testing
