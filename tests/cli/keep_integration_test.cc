// `optrace keep` and `optrace keeps` against a real daemon: a kept range
// printed and listed (table and JSON), merged keeps shown once, and the
// errors of an unknown session.
#include <gtest/gtest.h>

#include <regex>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;

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

TEST_F(KeepTest, UnknownSession_NoSessionExit1) {
  for (const char* command : {"keep", "keeps"}) {
    const CliRun run = Cli({command, "999999"});
    EXPECT_EQ(run.exit_code, 1) << command;
    EXPECT_NE(run.err.find("no session 999999"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace optrace::cli::testing
