// `optrace window` and `optrace run --keep-last` against a real daemon and
// real producers: the daemon's window shown, a session's own set (and
// shown by `sessions show`), back to the daemon's, an ended session
// refused, and a command run with its own window trimmed by it while the
// daemon's window keeps everything.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;

class WindowCommandTest : public CliTest {};

TEST_F(WindowCommandTest, RunningSession_ShownSetAndReset) {
  auto producer = StartTestProducer({"--forever", "--rate", "1000"});
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object()) << daemon_.log();
  const std::string id = std::to_string(session["id"].get<uint64_t>());
  EXPECT_FALSE(session["window"]["own"].get<bool>());

  const CliRun shown = Cli({"window", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(std::regex_match(
      shown.out, std::regex("session " + id + ": keeps .*\\(the daemon's window\\)\n")))
      << shown.out;

  const CliRun set = Cli({"window", id, "--keep-last", "90s", "--keep-last-bytes", "8MiB"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out,
            "session " + id + ": keeps the last 90.0 s, at most 8.00 MiB (its own window)\n");
  const CliRun time_only = Cli({"window", id, "--keep-last", "1h", "--json"});
  ASSERT_EQ(time_only.exit_code, 0) << time_only.err;
  const auto json = nlohmann::json::parse(time_only.out);
  EXPECT_EQ(json["keep_last_ns"], 3'600'000'000'000u);
  EXPECT_EQ(json["keep_last_bytes"], 8u << 20) << "a bound not given stays";
  EXPECT_TRUE(json["own"].get<bool>());
  const CliRun detail = Cli({"sessions", "show", id});
  EXPECT_NE(detail.out.find("window     keeps the last 3600 s, at most 8.00 MiB (its own window)"),
            std::string::npos)
      << detail.out;

  const CliRun reset = Cli({"window", id, "--default", "--json"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_FALSE(nlohmann::json::parse(reset.out)["own"].get<bool>());
  EXPECT_EQ(Cli({"window", id, "--default", "--keep-last", "1s"}).exit_code, 2)
      << "--default excludes the bounds";
  producer->Kill(SIGTERM);
  ASSERT_TRUE(producer->Wait(20s).has_value());
  ASSERT_TRUE(WaitForSession(static_cast<uint32_t>(producer->pid()), true).is_object());
  const CliRun ended = Cli({"window", id, "--keep-last", "1s"});
  EXPECT_EQ(ended.exit_code, 1);
  EXPECT_EQ(ended.err, "optrace: session " + id + " has exited: its window no longer moves\n");
}

// The daemon keeps everything of a session by default here (10 min of a
// run of seconds); the run's own window of 200 ms trims most of it, and
// every span is still counted.
TEST_F(WindowCommandTest, RunKeepLast_SessionTrimmedByItsOwnWindow) {
  const CliRun run = Cli({"run", "--keep-last", "200ms", "--", TestProducerPath(), "--rate",
                          "20000", "--ops", "40000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(std::regex_search(run.err, std::regex(R"(: exited, 80001 spans, 0 drops)")))
      << run.err;
  const nlohmann::json sessions = nlohmann::json::parse(Cli({"sessions", "--all", "--json"}).out);
  ASSERT_EQ(sessions["sessions"].size(), 1u);
  const nlohmann::json& session = sessions["sessions"][0];
  EXPECT_TRUE(session["window"]["own"].get<bool>());
  EXPECT_EQ(session["window"]["keep_last_ns"], 200'000'000u);
  EXPECT_GT(session["spans_trimmed"].get<uint64_t>(), 40'000u)
      << "2 s of spans, 200 ms kept: " << session.dump();
}

}  // namespace
}  // namespace optrace::cli::testing
