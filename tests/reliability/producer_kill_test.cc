// Producers SIGKILLed at random moments while they trace flat out (issue
// 9): every event the daemon read from a killed producer is stored, its
// session ends `crashed` with the ops it left open stored as `incomplete`,
// its segment leaves /dev/shm, and a producer running beside the victims
// the whole time loses nothing it did not count.
#include <gtest/gtest.h>
#include <signal.h>

#include <random>
#include <thread>

#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;
using daemon::SessionState;

// Totals over every killed producer, for the figure.
struct KillTotals {
  int killed = 0;
  int crashed = 0;
  uint64_t events_read = 0;
  uint64_t events_stored = 0;
  uint64_t open_ops = 0;
  uint64_t incomplete_spans = 0;
  uint64_t dropped_ring_full = 0;
  int segments_left = 0;
};

// Checks the stored end of the killed `victim` and adds it to `totals`.
void CheckKilled(const Subprocess& victim, StoreView& store, KillTotals* totals) {
  const auto pid = static_cast<uint32_t>(victim.pid());
  const auto session = store.WaitForEnd(pid, 20s);
  ASSERT_TRUE(session.has_value()) << "the session of killed pid " << pid << " never ended";
  const StoredEvents stored = CountStored(store, session->id);
  ++totals->killed;
  totals->crashed += session->state == SessionState::kCrashed;
  totals->events_read += session->events;
  totals->events_stored += stored.events;
  totals->open_ops += session->open_ops;
  totals->incomplete_spans += stored.incomplete_spans;
  totals->dropped_ring_full += session->dropped_ring_full;
  EXPECT_EQ(session->state, SessionState::kCrashed) << "pid " << pid;
  EXPECT_EQ(stored.events, session->events)
      << "pid " << pid << ": events read but not stored (shed " << session->dropped_shed << ")";
  EXPECT_EQ(stored.incomplete_spans, session->open_ops) << "pid " << pid;
  EXPECT_EQ(stored.spans, session->spans) << "pid " << pid << ": the session's span count";
  const bool removed = WaitUntil([&] { return !SegmentExists(pid); }, 5s);
  totals->segments_left += !removed;
  EXPECT_TRUE(removed) << "the segment of killed pid " << pid << " is still in /dev/shm";
}

TEST(ProducerKillTest,
     KilledAtRandomMomentsUnderLoad_EveryEventReadStoredOpenOpsIncompleteNoSegmentLeft) {
  const int kills = 100;
  const unsigned seed = TestSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  StoreView store(daemon.db_path());
  // A witness traces at a steady rate through every kill; roughly as long
  // as the rounds take, so that the test does not wait for it long.
  auto witness = StartLoadProducer(1, 10000, 0.6 * kills / 2);
  KillTotals totals;
  for (int round = 0; round < kills / 2 && !::testing::Test::HasFatalFailure(); ++round) {
    // Two victims per round, each 2 threads of nested ops flat out on
    // rings small enough to overflow, killed at independent moments.
    std::unique_ptr<Subprocess> victims[2];
    for (auto& v : victims) {
      v = StartTestProducer({"--threads", "2", "--forever"}, {{"OPTRACE_RING_CAPACITY", "4096"}});
    }
    for (auto& v : victims)
      ASSERT_TRUE(v->WaitForLine("ready", 20s).has_value()) << v->stderr_text();
    for (auto& v : victims) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(10, 200)(random)));
      v->Kill(SIGKILL);
    }
    for (auto& v : victims) {
      ASSERT_TRUE(v->Wait(10s).has_value());
      CheckKilled(*v, store, &totals);
    }
  }
  ASSERT_TRUE(witness->Wait(60s).has_value());
  const auto witness_session = store.WaitForEnd(static_cast<uint32_t>(witness->pid()), 20s);
  ASSERT_TRUE(witness_session.has_value()) << daemon.log();
  EXPECT_EQ(witness_session->state, SessionState::kExited);
  const EventBalance balance = BalanceOf(*witness, *witness_session, store);
  EXPECT_EQ(balance.unaccounted(), 0) << "written " << balance.written << " stored "
                                      << balance.stored << " dropped " << balance.dropped;
  auto stub = v1::OpTrace::NewStub(NewConnection(daemon.socket_path()));
  EXPECT_TRUE(DaemonStatus(*stub).has_value()) << "the daemon answers GetStatus";
  EXPECT_EQ(daemon.Stop(), 0) << daemon.log();
  ReportFigure(std::to_string(totals.killed) + " producers killed, " +
               std::to_string(totals.crashed) + " crashed; events read " +
               std::to_string(totals.events_read) + ", stored " +
               std::to_string(totals.events_stored) + " (lost " +
               std::to_string(static_cast<int64_t>(totals.events_read - totals.events_stored)) +
               "); open ops " + std::to_string(totals.open_ops) + " = incomplete spans " +
               std::to_string(totals.incomplete_spans) + "; segments left " +
               std::to_string(totals.segments_left) + "; witness unaccounted " +
               std::to_string(balance.unaccounted()) + " of " + std::to_string(balance.written) +
               "; seed " + std::to_string(seed));
}

}  // namespace
}  // namespace optrace::testing
