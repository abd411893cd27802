#include "stats_command.h"

#include <gtest/gtest.h>

#include <regex>

#include "subprocess.h"
#include "text_width.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

v1::GetStatsResponse TwoGroups() {
  v1::GetStatsResponse stats;
  stats.set_total_ns(4'000'000);
  stats.set_self_ns(4'000'000);  // no nesting: self time is the total
  stats.set_spans(30);
  v1::OpStats* heavy = stats.add_rows();
  heavy->set_key("matmul");
  heavy->set_count(10);
  heavy->set_ok_count(10);
  heavy->set_total_ns(3'000'000);
  heavy->set_mean_ns(300'000);
  heavy->set_p50_ns(290'000);
  heavy->set_p95_ns(350'000);
  heavy->set_p99_ns(390'000);
  heavy->set_max_ns(400'000);
  heavy->set_share(0.75);
  heavy->set_self_ns(3'000'000);
  heavy->set_self_share(0.75);
  v1::OpStats* light = stats.add_rows();
  light->set_key("elementwise_add_with_a_very_long_name_indeed");
  light->set_count(20);
  light->set_ok_count(20);
  light->set_total_ns(1'000'000);
  light->set_mean_ns(50'000);
  light->set_p50_ns(50'000);
  light->set_p95_ns(60'000);
  light->set_p99_ns(61'000);
  light->set_max_ns(62'000);
  light->set_share(0.25);
  light->set_self_ns(1'000'000);
  light->set_self_share(0.25);
  return stats;
}

TEST(StatsTableTest, Columns_HeaderAndHumanUnits) {
  const auto lines =
      SplitLines(RenderStatsTable(TwoGroups(), v1::GROUP_BY_NAME, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("NAME", 0), 0u);
  for (const char* header :
       {"COUNT", "TOTAL", "SELF", "MEAN", "P50", "P95", "P99", "MAX", "SHARE", "SELF%"}) {
    EXPECT_NE(lines[0].find(header), std::string::npos) << header;
  }
  EXPECT_NE(lines[1].find("3.00 ms"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("300 µs"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("75.0%"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[3], "30 spans, 4.00 ms in ops");
}

TEST(StatsTableTest, ShareBar_ProportionalToShare) {
  const auto lines =
      SplitLines(RenderStatsTable(TwoGroups(), v1::GROUP_BY_NAME, 0, Palette(false)));
  const std::string full = "███████████████";  // 0.75 of 20 columns
  EXPECT_NE(lines[1].find(full), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("█████"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[2].find("██████"), std::string::npos) << lines[2];
}

TEST(StatsTableTest, NarrowTerminal_NamesCutRowsFit) {
  const auto lines =
      SplitLines(RenderStatsTable(TwoGroups(), v1::GROUP_BY_NAME, 110, Palette(false)));
  EXPECT_NE(lines[2].find("…"), std::string::npos) << lines[2];
  for (size_t i = 0; i < 3; ++i) EXPECT_LE(DisplayWidth(lines[i]), 110u) << lines[i];
}

TEST(StatsTableTest, ByTarget_DeviceHeader) {
  EXPECT_EQ(
      RenderStatsTable(TwoGroups(), v1::GROUP_BY_TARGET, 0, Palette(false)).rfind("DEVICE", 0), 0u);
}

TEST(StatsTableTest, Source_SaidOnTheTotalsLine) {
  v1::GetStatsResponse stats = TwoGroups();
  stats.set_source(v1::STATS_SOURCE_AGGREGATES);
  stats.set_percentile_relative_error(0.0078125);
  stats.set_percentile_spans(30);
  EXPECT_EQ(SplitLines(RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false)))[3],
            "30 spans, 4.00 ms in ops; whole session, from aggregates; percentiles ±0.8%");
  stats.set_percentile_spans(25);
  stats.set_groups_folded(12);
  EXPECT_EQ(SplitLines(RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false)))[3],
            "30 spans, 4.00 ms in ops; whole session, from aggregates; percentiles ±0.8% over 25 "
            "of 30 ok spans; 12 groups folded into (other)");
  stats.set_source(v1::STATS_SOURCE_SPANS);
  stats.set_groups_folded(0);
  stats.set_percentiles_exact(true);
  EXPECT_EQ(SplitLines(RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false)))[3],
            "30 spans, 4.00 ms in ops; over the stored spans; exact percentiles");
  // A pass over more OK spans than the daemon keeps exact.
  stats.set_percentiles_exact(false);
  EXPECT_EQ(SplitLines(RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false)))[3],
            "30 spans, 4.00 ms in ops; over the stored spans; percentiles ±0.8% (sketched: too "
            "many to keep)");
}

// A parent op whose time is mostly its child's: 3 ms in all, 2.5 ms of
// it in the child.
v1::GetStatsResponse Nested() {
  v1::GetStatsResponse stats;
  stats.set_total_ns(5'500'000);
  stats.set_self_ns(3'000'000);
  stats.set_spans(2);
  v1::OpStats* parent = stats.add_rows();
  parent->set_key("aten::conv2d");
  parent->set_count(1);
  parent->set_ok_count(1);
  parent->set_total_ns(3'000'000);
  parent->set_share(3.0 / 5.5);
  parent->set_self_ns(500'000);
  parent->set_self_share(0.5 / 3);
  v1::OpStats* child = stats.add_rows();
  child->set_key("aten::convolution");
  child->set_count(1);
  child->set_ok_count(1);
  child->set_total_ns(2'500'000);
  child->set_share(2.5 / 5.5);
  child->set_self_ns(2'500'000);
  child->set_self_share(2.5 / 3);
  return stats;
}

TEST(StatsTableTest, Nested_SelfBesideTotalAndTimeInOpsCountedOnce) {
  const auto lines = SplitLines(RenderStatsTable(Nested(), v1::GROUP_BY_NAME, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(std::regex_search(lines[1], std::regex(R"(aten::conv2d +1 +3\.00 ms +500 µs )")))
      << lines[1];
  EXPECT_TRUE(std::regex_search(lines[1], std::regex(R"( 54\.5% +16\.7% )"))) << lines[1];
  EXPECT_EQ(lines[3], "2 spans, 3.00 ms in ops (5.50 ms with nested ops counted in each parent)");
}

TEST(StatsTableTest, SortBySelf_BarShowsTheSelfShare) {
  const auto lines = SplitLines(RenderStatsTable(Nested(), v1::GROUP_BY_NAME, 0, Palette(false),
                                                 NodeColumn::kNone, v1::STATS_SORT_SELF));
  // 1/6 of 20 columns: 3 full blocks; by total it would have been 10.
  EXPECT_NE(lines[1].find("███"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("████"), std::string::npos) << lines[1];
}

TEST(StatsTableTest, Fleet_NoSelfColumns) {
  const auto lines = SplitLines(
      RenderStatsTable(TwoGroups(), v1::GROUP_BY_NAME, 0, Palette(false), NodeColumn::kNodeCount));
  EXPECT_EQ(lines[0].find("SELF"), std::string::npos) << lines[0];
}

TEST(StatsTableTest, Empty_SaysSo) {
  EXPECT_EQ(RenderStatsTable(v1::GetStatsResponse(), v1::GROUP_BY_NAME, 0, Palette(false)),
            "no spans match\n");
}

TEST(StatsTableTest, GroupWithoutTimedSpans_DashesNotZeros) {
  v1::GetStatsResponse stats;
  v1::OpStats* row = stats.add_rows();
  row->set_key("hung");
  row->set_count(2);
  const auto lines = SplitLines(RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false)));
  EXPECT_EQ(lines[1].find("0 ns"), std::string::npos) << lines[1];
}

TEST(StatsTableTest, Fleet_NodeColumns_AfterTheKey) {
  v1::GetStatsResponse stats = TwoGroups();
  stats.mutable_rows(0)->set_nodes(12);
  stats.mutable_rows(0)->set_node("gpu-node-7");
  const auto counts = SplitLines(
      RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false), NodeColumn::kNodeCount));
  EXPECT_LT(counts[0].find("NODES"), counts[0].find("COUNT")) << counts[0];
  EXPECT_NE(counts[1].find(" 12 "), std::string::npos) << counts[1];
  const auto names = SplitLines(
      RenderStatsTable(stats, v1::GROUP_BY_NAME, 0, Palette(false), NodeColumn::kNodeName));
  EXPECT_LT(names[0].find("NODE"), names[0].find("COUNT")) << names[0];
  EXPECT_EQ(names[0].find("NODES"), std::string::npos) << names[0];
  EXPECT_NE(names[1].find("gpu-node-7"), std::string::npos) << names[1];
}

TEST(ThreadTableTest, Threads_BusyWallAndShareThenTheCount) {
  v1::GetStatsResponse stats;
  v1::ThreadBusy* busy = stats.add_threads();
  busy->set_tid(4242);
  busy->set_ops(5);
  busy->set_busy_ns(100'000'000);
  busy->set_wall_ns(102'000'000);
  busy->set_busy_share(100.0 / 102);
  v1::ThreadBusy* light = stats.add_threads();
  light->set_tid(4243);
  light->set_ops(5);
  light->set_busy_ns(5'500'000);
  light->set_wall_ns(85'500'000);
  light->set_busy_share(5.5 / 85.5);
  const auto lines = SplitLines(RenderThreadTable(stats, 0));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("THREAD +OPS +BUSY +WALL +BUSY%"))) << lines[0];
  EXPECT_TRUE(std::regex_match(lines[1], std::regex(" *4242 +5 +100 ms +102 ms +98.0%")))
      << lines[1];
  EXPECT_TRUE(std::regex_match(lines[2], std::regex(" *4243 +5 +5.50 ms +85.5 ms +6.4%")))
      << lines[2];
  EXPECT_EQ(lines[3].rfind("2 threads; BUSY is the self time", 0), 0u) << lines[3];
  stats.set_threads_left_out(7);
  EXPECT_EQ(SplitLines(RenderThreadTable(stats, 0)).back().rfind("9 threads (2 listed);", 0), 0u);
  EXPECT_EQ(RenderThreadTable(v1::GetStatsResponse(), 0), "no thread ran ops that match\n");
}

}  // namespace
}  // namespace optrace::cli
