// `optrace ops` against a real daemon: every span once, filters, paging.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <utility>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;

class OpsTest : public CliTest {};

TEST_F(OpsTest, LimitZero_EverySpanOnceInStartOrder) {
  const ProducerRun p = Produce({"--ops", "1500"});  // more than one page of the daemon's
  ASSERT_NE(p.session_id, 0u);
  const CliRun run = Cli({"ops", std::to_string(p.session_id), "--limit", "0", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["more"], false);
  const auto& spans = j["spans"];
  ASSERT_EQ(spans.size(), p.done.at("launches"));
  std::set<uint64_t> ids;
  // Each span's children on its own thread: their durations, summed.
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> children_ns;
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_TRUE(ids.insert(spans[i]["op_id"].get<uint64_t>()).second);
    EXPECT_EQ(spans[i]["status"], "ok");
    if (i > 0) {
      EXPECT_LE(spans[i - 1]["start_unix_ns"], spans[i]["start_unix_ns"]);
    }
    children_ns[{spans[i]["parent_op_id"], spans[i]["launch_thread"]}] +=
        spans[i]["duration_ns"].get<uint64_t>();
  }
  // Self time: the duration less the children's, never below 0.
  size_t with_children = 0;
  for (const auto& span : spans) {
    const uint64_t duration = span["duration_ns"];
    const auto it = children_ns.find({span["op_id"], span["launch_thread"]});
    const uint64_t children = it == children_ns.end() ? 0 : std::min(it->second, duration);
    with_children += children > 0 ? 1 : 0;
    EXPECT_EQ(span["self_ns"], duration - children) << span.dump();
  }
  EXPECT_GT(with_children, 0u) << "the producer nests inner ops in outer ones";
}

TEST_F(OpsTest, Filters_OnlyMatchingSpans) {
  const ProducerRun p = Produce({"--ops", "40"});
  const CliRun run = Cli({"ops", std::to_string(p.session_id), "--name", "^inner$", "--target",
                          "gpu", "--device", "1", "--limit", "0", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto spans = nlohmann::json::parse(run.out)["spans"];
  EXPECT_EQ(spans.size(), 40u);
  for (const auto& s : spans) {
    EXPECT_EQ(s["name"], "inner");
    EXPECT_EQ(s["device"]["name"], "gpu:1");
    EXPECT_EQ(s["device"]["stream"], 7);
  }
  const CliRun tagged = Cli({"ops", std::to_string(p.session_id), "--tag", "^shape_3$", "--json"});
  EXPECT_EQ(nlohmann::json::parse(tagged.out)["spans"].size(), 5u);  // i % 8 == 3 of 40
}

TEST_F(OpsTest, DefaultTable_HundredRowsAndAHint) {
  const ProducerRun p = Produce({"--ops", "100"});
  const CliRun run = Cli({"ops", std::to_string(p.session_id)});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto lines = SplitLines(run.out);
  ASSERT_EQ(lines.size(), 102u);
  EXPECT_TRUE(std::regex_match(
      lines[0], std::regex(" *START +ID +NAME +TAG +DEVICE +DURATION +SELF +ON DEVICE +STATUS")))
      << lines[0];
  EXPECT_TRUE(
      std::regex_match(lines[1], std::regex(R"( *\+[0-9.]+ (ns|µs|ms|s) +\d+  start .* ok)")))
      << lines[1];
  EXPECT_EQ(lines[101], "first 100 spans shown; --limit N shows more, --limit 0 all");
}

TEST_F(OpsTest, NoMatch_SaysSo) {
  const ProducerRun p = Produce({"--ops", "3"});
  const CliRun run = Cli({"ops", std::to_string(p.session_id), "--name", "^nothing$"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "no spans in session " + std::to_string(p.session_id) + " match\n");
}

}  // namespace
}  // namespace optrace::cli::testing
