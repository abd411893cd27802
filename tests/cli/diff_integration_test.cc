// `optrace diff` of two real sessions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;

class DiffTest : public CliTest {};

TEST_F(DiffTest, TwoRuns_CountsOnlyInOneAndSortedByChange) {
  const ProducerRun a = Produce({"--ops", "300"}, "op-by-op");
  const ProducerRun b = Produce({"--sleeps"}, "sleepy");
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const std::string ida = std::to_string(a.session_id), idb = std::to_string(b.session_id);
  const CliRun json = Cli({"diff", ida, idb, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["session_a"]["label"], "op-by-op");
  EXPECT_EQ(j["session_b"]["label"], "sleepy");
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : j["rows"]) rows[row["key"]] = row;
  EXPECT_EQ(rows["outer"]["count_a"], 300);
  EXPECT_EQ(rows["outer"]["only_in_a"], true);
  EXPECT_EQ(rows["sleep_5ms"]["count_b"], 10);
  EXPECT_EQ(rows["sleep_5ms"]["only_in_b"], true);
  EXPECT_EQ(rows["start"]["count_a"], 1);
  EXPECT_EQ(rows["start"]["count_b"], 1);

  const CliRun text = Cli({"diff", ida, idb});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const auto lines = SplitLines(text.out);
  ASSERT_GE(lines.size(), 6u) << text.out;
  EXPECT_EQ(lines[0], "A = session " + ida + " (op-by-op)");
  EXPECT_EQ(lines[1], "B = session " + idb + " (sleepy)");
  // Rows by |change|, largest first: the sleeps (only in B, tens of ms)
  // lead, the microsecond ops of A follow.
  std::vector<std::pair<uint64_t, std::string>> by_change;
  for (const auto& row : j["rows"]) {
    const int64_t change = row["total_change_ns"];
    by_change.emplace_back(static_cast<uint64_t>(change < 0 ? -change : change), row["key"]);
  }
  std::stable_sort(by_change.begin(), by_change.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  ASSERT_EQ(lines.size(), by_change.size() + 4) << text.out;
  for (size_t i = 0; i < by_change.size(); ++i) {
    EXPECT_EQ(lines[3 + i].rfind(by_change[i].second + " ", 0), 0u) << text.out;
  }
  EXPECT_EQ(by_change[0].second.rfind("sleep_", 0), 0u);
  EXPECT_NE(lines[3].find("only in B"), std::string::npos) << lines[3];
  EXPECT_NE(text.out.find("only in A"), std::string::npos);
  EXPECT_EQ(lines.back().rfind("total: A ", 0), 0u) << lines.back();
}

}  // namespace
}  // namespace optrace::cli::testing
