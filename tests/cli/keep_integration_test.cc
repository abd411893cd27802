// `optrace keep` and `optrace keeps` against a real daemon: a kept range
// printed and listed (table and JSON), merged keeps shown once, a crash's
// keep, and the errors of an unknown session.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::SplitLines;
using optrace::testing::WaitUntil;

class KeepTest : public CliTest {};

TEST_F(KeepTest, KeepThenKeeps_RangeListedAndMerged) {
  const ProducerRun p = Produce({"--ops", "50"}, "keep-test");
  ASSERT_NE(p.session_id, 0u) << daemon_.log();
  const std::string id = std::to_string(p.session_id);

  const CliRun kept = Cli({"keep", id, "--last", "1ms", "--reason", "first look"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  const std::regex line("kept session " + id +
                        R"( from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d )"
                        R"(\(1\.00 ms, [0-9.]+ (B|KiB)\): first look\n)");
  EXPECT_TRUE(std::regex_match(kept.out, line)) << kept.out;

  const CliRun whole = Cli({"keep", id, "--json"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const auto keep = nlohmann::json::parse(whole.out);
  EXPECT_EQ(keep["reason"], "keep; first look") << "the whole session took the 1 ms in";
  EXPECT_GT(keep["bytes"].get<uint64_t>(), 0u);

  const CliRun table = Cli({"keeps", id});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = SplitLines(table.out);
  ASSERT_EQ(lines.size(), 2u) << table.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("FROM +TO +LENGTH +BYTES +REASON")))
      << lines[0];
  EXPECT_NE(lines[1].find("keep; first look"), std::string::npos) << lines[1];

  const CliRun json = Cli({"keeps", id, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto keeps = JsonMember(json.out, "keeps");
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0]["first_unix_ns"], keep["first_unix_ns"]);
  EXPECT_EQ(keeps[0]["session_id"], p.session_id);
}

// Issue 25: a crash keeps the ops left open and the window before it.
TEST_F(KeepTest, HeldOpThenKilled_CrashKeepFromTheOpenOp) {
  auto producer = StartTestProducer({"--ops", "10", "--hold-open", "rms_norm"});
  ASSERT_TRUE(producer->WaitForLine("holding=", 20s).has_value());
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object()) << daemon_.log();
  const std::string id = std::to_string(session["id"].get<uint64_t>());
  producer->Kill(SIGKILL);
  producer->Wait(10s);
  const nlohmann::json ended = WaitForSession(static_cast<uint32_t>(producer->pid()), true);
  ASSERT_TRUE(ended.is_object());
  ASSERT_EQ(ended["state"], "crashed");
  nlohmann::json keeps;
  ASSERT_TRUE(WaitUntil(
      [&] {
        keeps = JsonMember(Cli({"keeps", id, "--json"}).out, "keeps");
        return keeps.size() == 1;
      },
      10s))
      << keeps.dump();
  EXPECT_EQ(keeps[0]["reason"], "crash");
  EXPECT_EQ(keeps[0]["last_unix_ns"], ended["end_unix_ns"]);
  const auto open = JsonMember(Cli({"sessions", "show", id, "--json"}).out, "open_ops");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_LE(keeps[0]["first_unix_ns"].get<int64_t>(), open[0]["start_unix_ns"].get<int64_t>());
  EXPECT_GT(keeps[0]["bytes"].get<uint64_t>(), 0u);
  const CliRun status = Cli({"status", "--json"});
  EXPECT_EQ(JsonMember(status.out, "counters")["keeps_recorded"], 1);
}

TEST_F(KeepTest, UnknownSession_NoSessionExit1) {
  for (const char* command : {"keep", "keeps"}) {
    const CliRun run = Cli({command, "999999"});
    EXPECT_EQ(run.exit_code, 1) << command;
    EXPECT_NE(run.err.find("no session 999999"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace optrace::cli::testing
