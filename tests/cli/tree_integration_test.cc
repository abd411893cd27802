// `optrace tree --step N` against a real daemon and a real producer that
// records explicit steps: one step's tree holds the spans that began in it
// (the step's ops as `optrace steps` counts them, and the step's own span),
// the slow step's op only in the slow step's tree, and clear errors for a
// step the session does not have.
#include <gtest/gtest.h>

#include <string>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

constexpr int kSteps = 5;
constexpr int kSlowStep = 3;

class TreeStepTest : public CliTest {
 protected:
  // The names in `tree` (optrace tree --json) at each depth, "depth:name".
  static std::vector<std::string> NodeNames(const nlohmann::json& nodes) {
    std::vector<std::string> names;
    for (const auto& node : nodes) {
      names.push_back(std::to_string(node["depth"].get<int>()) + ":" +
                      node["name"].get<std::string>());
    }
    return names;
  }
};

TEST_F(TreeStepTest, ExplicitSteps_EachStepsTreeHoldsItsOpsAndItsOwnSpan) {
  const ProducerRun p = Produce(
      {"--steps", std::to_string(kSteps), "--slow-step", std::to_string(kSlowStep)}, "tree-steps");
  ASSERT_NE(p.session_id, 0u) << daemon_.log();
  const std::string id = std::to_string(p.session_id);
  const CliRun steps = Cli({"steps", id, "--json"});
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  const nlohmann::json listed = JsonMember(steps.out, "steps");
  ASSERT_EQ(listed.size(), static_cast<size_t>(kSteps)) << steps.out;

  for (const auto& step : listed) {
    const std::string number = std::to_string(step["step"].get<uint64_t>());
    SCOPED_TRACE("step " + number);
    const CliRun tree = Cli({"tree", id, "--step", number, "--min-share", "0", "--json"});
    ASSERT_EQ(tree.exit_code, 0) << tree.err;
    const auto doc = nlohmann::json::parse(tree.out);
    // Its ops and the step's own span, which is their root.
    EXPECT_EQ(doc["spans"].get<uint64_t>(), step["ops"].get<uint64_t>() + 1) << tree.out;
    const std::vector<std::string> names = NodeNames(doc["nodes"]);
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names[0], "0:optrace.step");
    EXPECT_EQ(doc["nodes"][0]["count"], 1);
    EXPECT_EQ(doc["nodes"][0]["total_ns"], step["duration_ns"]);
    const bool has_slow_only = std::find(names.begin(), names.end(), "1:slow_only") != names.end();
    EXPECT_EQ(has_slow_only, number == std::to_string(kSlowStep)) << tree.out;
    EXPECT_NE(std::find(names.begin(), names.end(), "2:matmul"), names.end()) << tree.out;
  }
  // The table form: the step's span at the top, its ops under it.
  const CliRun table = Cli({"tree", id, "--step", std::to_string(kSlowStep), "--min-share", "0"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("  optrace.step\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("    slow_only\n"), std::string::npos) << table.out;
}

TEST_F(TreeStepTest, NoSuchStep_ExitOneNamingTheSteps) {
  const ProducerRun steps = Produce({"--steps", "2"});
  ASSERT_NE(steps.session_id, 0u) << daemon_.log();
  const CliRun missing = Cli({"tree", std::to_string(steps.session_id), "--step", "9"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "optrace: session " + std::to_string(steps.session_id) +
                             " has no step 9 (its steps are numbered 1 to 2)\n");
  EXPECT_EQ(missing.out, "");

  const ProducerRun plain = Produce({"--ops", "20"});
  ASSERT_NE(plain.session_id, 0u) << daemon_.log();
  const CliRun none = Cli({"tree", std::to_string(plain.session_id), "--step", "1"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("session " + std::to_string(plain.session_id) + " has no steps"),
            std::string::npos)
      << none.err;
}

}  // namespace
}  // namespace optrace::cli::testing
