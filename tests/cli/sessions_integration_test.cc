// `optrace sessions` and `optrace sessions show` against a real daemon.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <regex>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::SplitLines;
using optrace::testing::WaitUntil;

class SessionsTest : public CliTest {};

TEST_F(SessionsTest, EndedRun_InTheTableAndJsonWithTheProducersNumbers) {
  const ProducerRun p = Produce({"--ops", "50"}, "sessions-test");
  ASSERT_NE(p.session_id, 0u) << daemon_.log();
  EXPECT_EQ(p.session["label"], "sessions-test");
  EXPECT_EQ(p.session["state"], "exited");
  EXPECT_EQ(p.session["spans"], p.done.at("launches"));
  EXPECT_EQ(p.session["events"], p.done.at("launches") + p.done.at("completes"));
  EXPECT_EQ(p.session["drops"]["total"], 0);
  EXPECT_GT(p.session["end_unix_ns"].get<int64_t>(), p.session["start_unix_ns"].get<int64_t>());

  const CliRun all = Cli({"sessions", "--all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto lines = SplitLines(all.out);
  ASSERT_GE(lines.size(), 2u) << all.out;
  const std::regex header(
      R"(ID +LABEL +PID +EXECUTABLE +START +DURATION +OPS +DROPS +TRIMMED +STATE)");
  EXPECT_TRUE(std::regex_match(lines[0], header)) << lines[0];
  const std::regex row(
      " *" + std::to_string(p.session_id) + "  sessions-test +" +
      std::to_string(p.producer->pid()) +
      R"(  optrace-test-producer  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d +[0-9.]+ (ns|µs|ms|s) +101 +0 +0  exited)");
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [&](const std::string& line) { return std::regex_match(line, row); }),
            1)
      << all.out;

  const CliRun running = Cli({"sessions"});
  EXPECT_EQ(running.exit_code, 0);
  EXPECT_EQ(running.out.find("sessions-test"), std::string::npos) << "ended: not listed by default";
}

TEST_F(SessionsTest, Limit_NewestFirst) {
  const ProducerRun a = Produce({"--ops", "1"}, "first");
  const ProducerRun b = Produce({"--ops", "1"}, "second");
  const CliRun run = Cli({"sessions", "--all", "--limit", "1", "--json"});
  ASSERT_EQ(run.exit_code, 0);
  const auto sessions = nlohmann::json::parse(run.out)["sessions"];
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0]["label"], "second");
}

TEST_F(SessionsTest, Show_HeldOpThenKilled_OpenThenLeftIncomplete) {
  auto producer = StartTestProducer({"--ops", "10", "--hold-open", "rms_norm"});
  const auto holding = producer->WaitForLine("holding=", 20s);
  ASSERT_TRUE(holding.has_value());
  const std::string op_id = holding->substr(0, holding->find(' '));
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object()) << daemon_.log();
  const std::string id = std::to_string(session["id"].get<uint64_t>());
  const std::regex open_line("  rms_norm id=" + op_id + R"( \S+ open for [0-9.]+ (ns|µs|ms|s).*)");
  CliRun show;
  ASSERT_TRUE(WaitUntil(
      [&] {
        show = Cli({"sessions", "show", id});
        return show.out.find("1 ops open") != std::string::npos;
      },
      10s))
      << show.out;
  EXPECT_EQ(show.out.rfind("session " + id + "  running\n", 0), 0u) << show.out;
  bool found = false;
  for (const std::string& line : SplitLines(show.out)) found |= std::regex_match(line, open_line);
  EXPECT_TRUE(found) << show.out;

  producer->Kill(SIGKILL);
  producer->Wait(10s);
  ASSERT_TRUE(WaitForSession(static_cast<uint32_t>(producer->pid()), true).is_object());
  show = Cli({"sessions", "show", id});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_NE(show.out.find("crashed"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("1 ops left open (incomplete)"), std::string::npos) << show.out;
  const CliRun json = Cli({"sessions", "show", id, "--json"});
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["session"]["state"], "crashed");
  ASSERT_EQ(j["open_ops"].size(), 1u);
  EXPECT_EQ(j["open_ops"][0]["name"], "rms_norm");
  EXPECT_EQ(std::to_string(j["open_ops"][0]["op_id"].get<uint64_t>()), op_id);
}

}  // namespace
}  // namespace optrace::cli::testing
