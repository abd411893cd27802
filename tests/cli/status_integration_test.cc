// `optrace status` against a real daemon.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::WaitUntil;

class StatusTest : public CliTest {};

TEST_F(StatusTest, TextAndJson_TheDaemonsFacts) {
  const ProducerRun p = Produce({"--ops", "10"});
  CliRun run = Cli({"status"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("optraced 0.1.0 at " + daemon_.socket_path() + ", up "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("database   " + daemon_.db_path() + " ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("drops      live sessions: none\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("           all sessions: none\n"), std::string::npos) << run.out;
  run = Cli({"status", "--json"});
  ASSERT_EQ(run.exit_code, 0);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["namespace"], std::getenv("OPTRACE_NAMESPACE"));
  EXPECT_EQ(j["db_path"], daemon_.db_path());
  EXPECT_EQ(j["version"], "0.1.0");
  EXPECT_GE(j["events_ingested"].get<uint64_t>(), p.done.at("launches") * 2);
  EXPECT_EQ(j["drops"]["total"], 0);
  EXPECT_EQ(j["all_sessions_drops"]["total"], 0);
  EXPECT_TRUE(j["counters"].is_object());
}

// Issue 16: a session that lost events to a full ring has ended; its loss
// must still be in `optrace status`, not "drops none".
TEST_F(StatusTest, Issue16_RingOverflowedThenSessionEnded_StatusStillShowsTheLoss) {
  // No daemon drains while the producer writes: its 64-event ring must
  // overflow. It then holds an op open, alive, until the daemon attaches.
  ASSERT_EQ(daemon_.Stop(), 0);
  auto producer = StartTestProducer({"--ops", "1000", "--hold-open", "held"},
                                    {{"OPTRACE_LEVEL", "trace"}, {"OPTRACE_RING_CAPACITY", "64"}});
  ASSERT_TRUE(producer->WaitForLine("holding=", 20s).has_value()) << producer->stderr_text();
  ASSERT_TRUE(daemon_.Start()) << daemon_.log();
  const auto pid = static_cast<uint32_t>(producer->pid());
  uint64_t live_ring_full = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        const CliRun run = Cli({"status", "--json"});
        if (run.exit_code != 0) return false;
        live_ring_full = nlohmann::json::parse(run.out)["drops"]["ring_full"];
        return live_ring_full > 0;
      },
      20s))
      << "the live session's ring_full drops are in status";

  producer->Kill(SIGKILL);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const nlohmann::json session = WaitForSession(pid, /*ended=*/true);
  ASSERT_TRUE(session.is_object()) << daemon_.log();
  const uint64_t ring_full = session["drops"]["ring_full"];
  // The start op, 1000 iterations of two ops (on a thread and a ring of
  // their own) and the held op's LAUNCH are 4003 events: each was read or
  // counted as dropped.
  EXPECT_GT(ring_full, 0u);
  EXPECT_EQ(session["events"].get<uint64_t>() + ring_full, 4003u) << session.dump();
  EXPECT_GE(ring_full, live_ring_full);

  CliRun run = Cli({"status", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["drops"]["total"], 0) << "no live session lost anything";
  EXPECT_EQ(j["all_sessions_drops"]["ring_full"], ring_full) << run.out;
  EXPECT_EQ(j["all_sessions_drops"]["total"], session["drops"]["total"]) << run.out;

  run = Cli({"status"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("drops      live sessions: none\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("           all sessions: " + std::to_string(ring_full) +
                         " events (ring_full " + std::to_string(ring_full) + ")"),
            std::string::npos)
      << run.out;
}

// Names a producer's instrumentation replaced at its cap are shown, live
// and once the session has ended, in `optrace status` and `sessions show`.
TEST_F(StatusTest, NamesCapped_LiveThenEnded_ShownInStatusAndSessionText) {
  auto producer = StartTestProducer({"--ops", "10", "--names-capped", "300", "--hold-open", "held"},
                                    {{"OPTRACE_LEVEL", "trace"}});
  ASSERT_TRUE(producer->WaitForLine("holding=", 20s).has_value()) << producer->stderr_text();
  CliRun run;
  ASSERT_TRUE(WaitUntil(
      [&] {
        run = Cli({"status"});
        return run.out.find("drops      live sessions: none; 300 names capped\n") !=
               std::string::npos;
      },
      20s))
      << run.out << run.err;
  EXPECT_NE(run.out.find("           all sessions: none; 300 names capped\n"), std::string::npos)
      << run.out;

  producer->Kill(SIGKILL);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  const nlohmann::json session =
      WaitForSession(static_cast<uint32_t>(producer->pid()), /*ended=*/true);
  ASSERT_TRUE(session.is_object()) << daemon_.log();
  EXPECT_EQ(session["drops"]["names_capped"], 300) << session.dump();
  run = Cli({"status"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("drops      live sessions: none\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("           all sessions: none; 300 names capped\n"), std::string::npos)
      << run.out;
  run = Cli({"sessions", "show", std::to_string(session["id"].get<uint64_t>())});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("  drops      none; 300 names capped\n"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace optrace::cli::testing
