// `optrace run`: the command's exit code, its session and top ops, and a
// clear word when no daemon recorded anything.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::TempFolder;

class RunTest : public CliTest {};

TEST_F(RunTest, Producer_SessionAndTopOpsOnStderrItsOutputOnStdout) {
  const CliRun run = Cli({"run", "--label", "run-test", "--", TestProducerPath(), "--ops", "100"},
                         {{"OPTRACE_RING_CAPACITY", "65536"}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("done launches=201 "), std::string::npos) << run.out;
  const std::regex summary(
      R"(optrace: session (\d+) \(run-test\) of pid \d+: exited, 201 spans, 0 drops\n)"
      R"(top ops by self time:\nNAME +COUNT +TOTAL +SELF[^\n]*\n(.*\n){3}201 spans, [^\n]*\n)"
      R"(more: optrace stats \d+, optrace ops \d+, optrace export \d+ --format chrome -o FILE\n)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(run.err, m, summary)) << run.err;
  const nlohmann::json sessions = nlohmann::json::parse(Cli({"sessions", "--all", "--json"}).out);
  ASSERT_EQ(sessions["sessions"].size(), 1u);
  EXPECT_EQ(std::to_string(sessions["sessions"][0]["id"].get<uint64_t>()), m[1].str());
  EXPECT_EQ(sessions["sessions"][0]["label"], "run-test");
}

TEST_F(RunTest, NamesCapped_CountedAfterTheDrops) {
  const CliRun run = Cli({"run", "--", TestProducerPath(), "--ops", "10", "--names-capped", "7"},
                         {{"OPTRACE_RING_CAPACITY", "65536"}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(
      std::regex_search(run.err, std::regex(R"(: exited, 21 spans, 0 drops; 7 names capped\n)")))
      << run.err;
}

TEST_F(RunTest, LevelAndLabel_InTheCommandsEnvironment) {
  const CliRun run = Cli({"run", "--level", "debug", "--label", "lbl", "--", "sh", "-c",
                          "echo $OPTRACE_LEVEL $OPTRACE_SESSION $OPTRACE_NAMESPACE"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, std::string("debug lbl ") + std::getenv("OPTRACE_NAMESPACE") + "\n");
  EXPECT_NE(run.err.find("no session of pid"), std::string::npos) << run.err;
}

TEST_F(RunTest, Lossless_FullRingWaitInTheCommandsEnvironment) {
  const CliRun lossless = Cli({"run", "--lossless", "--", "sh", "-c", "echo $OPTRACE_FULL_RING"});
  EXPECT_EQ(lossless.exit_code, 0);
  EXPECT_EQ(lossless.out, "wait\n");
  const CliRun plain = Cli({"run", "--", "sh", "-c", "echo ${OPTRACE_FULL_RING:-unset}"});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.out, "unset\n");
}

TEST_F(RunTest, CommandFails_ItsExitCode) {
  EXPECT_EQ(Cli({"run", "--", "sh", "-c", "exit 3"}).exit_code, 3);
}

TEST_F(RunTest, CommandKilled_128PlusSignal) {
  EXPECT_EQ(Cli({"run", "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + 15);
}

TEST_F(RunTest, NoSuchCommand_127) {
  const CliRun run = Cli({"run", "--", "/nonexistent/command"});
  EXPECT_EQ(run.exit_code, 127);
  EXPECT_EQ(run.err, "optrace: cannot run /nonexistent/command: No such file or directory\n");
}

// Removes the segments producers of this test binary's namespace left in
// /dev/shm: with no daemon, nobody else does.
void RemoveOwnSegments() {
  const std::string prefix = std::string(std::getenv("OPTRACE_NAMESPACE")) + ".";
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0)
      std::filesystem::remove(entry.path());
  }
}

TEST(RunWithoutDaemonTest, CommandStillRunsAndTheCliSaysNothingWasRecorded) {
  TempFolder folder;
  const std::string socket = folder.path() + "/optraced.sock";
  const CliRun run = RunCli({"--socket", socket, "run", "--", TestProducerPath(), "--ops", "5"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("done launches=11 "), std::string::npos) << run.out;
  EXPECT_EQ(run.err, "optrace: nothing was recorded: no daemon at " + socket +
                         "; start one with `optraced` or `systemctl start optraced`\n");
  const CliRun failing = RunCli({"--socket", socket, "run", "--", "sh", "-c", "exit 4"});
  EXPECT_EQ(failing.exit_code, 4);
  RemoveOwnSegments();
}

}  // namespace
}  // namespace optrace::cli::testing
