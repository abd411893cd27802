// `optrace level` and `optrace level set` against live producers.
#include <gtest/gtest.h>
#include <signal.h>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::WaitUntil;

class LevelTest : public CliTest {
 protected:
  // The producer entry of `pid` in `optrace level --json`, or null.
  nlohmann::json ProducerLevel(uint32_t pid) {
    const CliRun run = Cli({"level", "get", "--json"});
    if (run.exit_code != 0) return nullptr;
    for (const auto& p : JsonMember(run.out, "producers")) {
      if (p["pid"] == pid) return p;
    }
    return nullptr;
  }
};

TEST_F(LevelTest, SetForPid_ReachesItShowsItAndClearRestores) {
  auto producer =
      StartTestProducer({"--forever"}, {{"OPTRACE_SESSION", "levelled"}, {"OPTRACE_LEVEL", ""}});
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  const auto pid = static_cast<uint32_t>(producer->pid());
  ASSERT_TRUE(WaitUntil([&] { return ProducerLevel(pid).is_object(); }, 10s)) << daemon_.log();
  EXPECT_EQ(ProducerLevel(pid)["live"], "off");

  CliRun run = Cli({"level", "set", "trace", "--pid", std::to_string(pid)});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "level trace set for pid " + std::to_string(pid) + "; reached 1 producer\n");
  EXPECT_EQ(ProducerLevel(pid)["live"], "trace");
  EXPECT_EQ(ProducerLevel(pid)["override"], "trace");

  run = Cli({"level"});
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("default level: off\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find(std::to_string(pid)), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("levelled"), std::string::npos) << run.out;

  run = Cli({"level", "set", "--clear", "--pid", std::to_string(pid)});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "override cleared for pid " + std::to_string(pid) + "; reached 1 producer\n");
  EXPECT_EQ(ProducerLevel(pid)["live"], "off");

  run = Cli({"level", "set", "debug", "--label", "levelled"});
  EXPECT_EQ(run.out, "level debug set for label levelled; reached 1 producer\n");
  run = Cli({"level", "set", "info"});
  EXPECT_EQ(run.out, "default level set to info; reached 1 producer\n");
  EXPECT_EQ(ProducerLevel(pid)["live"], "debug") << "the label override stays";
  producer->Kill(SIGTERM);
  producer->Wait(20s);
}

TEST_F(LevelTest, BothLevelAndClear_Exit2) {
  const CliRun run = Cli({"level", "set", "trace", "--clear"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("either LEVEL"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace optrace::cli::testing
