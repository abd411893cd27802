// `optrace status` against a real daemon.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

class StatusTest : public CliTest {};

TEST_F(StatusTest, TextAndJson_TheDaemonsFacts) {
  const ProducerRun p = Produce({"--ops", "10"});
  CliRun run = Cli({"status"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("optraced 0.1.0 at " + daemon_.socket_path() + ", up "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("database   " + daemon_.db_path() + " ("), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("drops      none\n"), std::string::npos) << run.out;
  run = Cli({"status", "--json"});
  ASSERT_EQ(run.exit_code, 0);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["namespace"], std::getenv("OPTRACE_NAMESPACE"));
  EXPECT_EQ(j["db_path"], daemon_.db_path());
  EXPECT_EQ(j["version"], "0.1.0");
  EXPECT_GE(j["events_ingested"].get<uint64_t>(), p.done.at("launches") * 2);
  EXPECT_EQ(j["drops"]["total"], 0);
  EXPECT_TRUE(j["counters"].is_object());
}

}  // namespace
}  // namespace optrace::cli::testing
