// What a person at a terminal sees: the real CLI in a pseudo-terminal
// (util-linux `script`), compared with the same command into a pipe.
#include <gtest/gtest.h>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;

constexpr char kEscape = '\x1b';

class TerminalTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    run_ = Produce({"--ops", "200"}, "terminal");
    ASSERT_NE(run_.session_id, 0u) << daemon_.log();
    id_ = std::to_string(run_.session_id);
  }
  ProducerRun run_;
  std::string id_;
};

TEST_F(TerminalTest, Sessions_ColouredOnATerminalPlainInAPipe) {
  const CliRun tty = RunInTerminal(CliCommandLine({"sessions", "--all"}), 200);
  EXPECT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("\x1b[1mID\x1b[0m"), std::string::npos) << tty.out;
  const CliRun piped = Cli({"sessions", "--all"});
  EXPECT_EQ(piped.out.find(kEscape), std::string::npos) << piped.out;
}

TEST_F(TerminalTest, NoColor_PlainEvenOnATerminal) {
  const CliRun tty = RunInTerminal(CliCommandLine({"stats", id_}), 200, {{"NO_COLOR", "1"}});
  EXPECT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("outer"), std::string::npos) << tty.out;
  EXPECT_EQ(tty.out.find(kEscape), std::string::npos) << tty.out;
}

TEST_F(TerminalTest, Tail_LaunchAndCompleteInTheirOwnColours) {
  // The producer starts once the tail is live; the tail is stopped with
  // SIGINT (as Ctrl-C) and must exit 0.
  const std::string status = CliCommandLine({"status", "--json"});
  const std::string producer = "OPTRACE_LEVEL=trace OPTRACE_RING_CAPACITY=65536 " +
                               ShellQuote(TestProducerPath()) + " --ops 20 > /dev/null";
  const std::string command =
      "(until " + status + " | grep -q '\"tails\": 1'; do sleep 0.05; done; " + producer +
      ") & timeout --preserve-status -s INT 4 " + CliCommandLine({"tail", "--level=trace"});
  const CliRun tty = RunInTerminal(command, 120);
  EXPECT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("\x1b[36m[OP] LAUNCH\x1b[0m outer [id="), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\x1b[32m[OP] COMPLETE\x1b[0m outer [id="), std::string::npos) << tty.out;
}

TEST_F(TerminalTest, NarrowTerminal_LongNamesCutWithAnEllipsis) {
  const CliRun narrow =
      RunInTerminal(CliCommandLine({"stats", id_, "--by", "tag"}), 70, {{"NO_COLOR", "1"}});
  EXPECT_EQ(narrow.exit_code, 0) << narrow.out;
  EXPECT_NE(narrow.out.find("inner_s…"), std::string::npos) << narrow.out;
  const CliRun wide =
      RunInTerminal(CliCommandLine({"stats", id_, "--by", "tag"}), 250, {{"NO_COLOR", "1"}});
  EXPECT_NE(wide.out.find("inner_static_tag"), std::string::npos) << wide.out;
  EXPECT_EQ(wide.out.find("…"), std::string::npos) << wide.out;
  const CliRun piped = Cli({"stats", id_, "--by", "tag"});
  EXPECT_NE(piped.out.find("inner_static_tag"), std::string::npos) << "no truncation into a pipe";
  const CliRun columns = Cli({"stats", id_, "--by", "tag"}, {{"COLUMNS", "70"}});
  EXPECT_NE(columns.out.find("inner_s…"), std::string::npos) << "COLUMNS is honoured";
}

TEST_F(TerminalTest, Export_ProgressBarThenTheFinalLine) {
  const std::string path = folder_.path() + "/t.json";
  const CliRun tty =
      RunInTerminal(CliCommandLine({"export", id_, "--format", "chrome", "-o", path}), 120);
  EXPECT_EQ(tty.exit_code, 0) << tty.out;
  const size_t bar = tty.out.find("\rexporting  ");
  ASSERT_NE(bar, std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("% ", bar), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find(" / " + std::to_string(run_.done.at("launches")) + " spans", bar),
            std::string::npos)
      << tty.out;
  const size_t final_line = tty.out.find("wrote session " + id_);
  ASSERT_NE(final_line, std::string::npos) << tty.out;
  EXPECT_LT(bar, final_line);
  EXPECT_NE(tty.out.find("\r\x1b[K", bar), std::string::npos) << "the bar is erased";
}

}  // namespace
}  // namespace optrace::cli::testing
