#include "diff_command.h"

#include <gtest/gtest.h>

#include "exit_codes.h"
#include "subprocess.h"
#include "text_width.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

v1::Comparison* AddRow(v1::CompareSessionsResponse* c, const std::string& key, uint64_t a,
                       uint64_t b) {
  v1::Comparison* row = c->add_rows();
  row->set_key(key);
  row->set_count_a(a > 0 ? 1 : 0);
  row->set_count_b(b > 0 ? 1 : 0);
  row->set_total_a_ns(a);
  row->set_total_b_ns(b);
  row->set_total_change_ns(static_cast<int64_t>(b) - static_cast<int64_t>(a));
  row->set_only_in_a(b == 0);
  row->set_only_in_b(a == 0);
  if (a > 0 && b > 0) row->set_total_ratio(static_cast<double>(b) / static_cast<double>(a));
  return row;
}

TEST(DiffTableTest, Rows_SortedByAbsoluteChange) {
  v1::CompareSessionsResponse c;
  AddRow(&c, "small", 1'000, 1'100);         // +100 ns
  AddRow(&c, "fused_rms_matmul", 0, 5'000);  // only in B, +5 µs
  AddRow(&c, "rms_norm", 8'000, 0);          // only in A, -8 µs
  c.set_total_a_ns(9'000);
  c.set_total_b_ns(6'100);
  const auto lines = SplitLines(RenderDiffTable(c, v1::GROUP_BY_NAME, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[1].rfind("rms_norm", 0), 0u);
  EXPECT_NE(lines[1].find("-8.00 µs"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("only in A"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find("0 ns"), std::string::npos) << "no total in B, not a zero one";
  EXPECT_EQ(lines[2].rfind("fused_rms_matmul", 0), 0u);
  EXPECT_NE(lines[2].find("only in B"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("small", 0), 0u);
  EXPECT_NE(lines[3].find("1.10x"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4], "total: A 9.00 µs, B 6.10 µs (-2.90 µs, 0.678x)");
}

TEST(DiffTableTest, Header_CountsAndTotalsOfBoth) {
  v1::CompareSessionsResponse c;
  AddRow(&c, "x", 1, 2);
  const std::string header = SplitLines(RenderDiffTable(c, v1::GROUP_BY_TAG, 0, Palette(false)))[0];
  EXPECT_EQ(header.rfind("TAG", 0), 0u);
  for (const char* column : {"COUNT A", "COUNT B", "TOTAL A", "TOTAL B", "CHANGE", "B/A"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column;
  }
}

// A response with one fusion of B, "mm+gelu", of parts mm (in A) and gelu
// (missing in A), and one unfused row.
v1::CompareSessionsResponse WithFusion() {
  v1::CompareSessionsResponse c;
  AddRow(&c, "everything", 9'000, 6'100);
  v1::Fusion* f = c.add_fusions();
  f->set_name("fused_matmul_gelu");
  f->set_tag("mm+gelu");
  f->set_part_count(2);
  f->set_count_b(4);
  f->set_total_b_ns(3'000);
  f->set_group_count_a(8);
  f->set_group_total_a_ns(4'000);
  f->set_group_count_b(4);
  f->set_group_total_b_ns(3'000);
  f->set_total_change_ns(-1'000);
  f->set_total_ratio(0.75);
  f->set_ops_saved(4);
  v1::FusionPart* mm = f->add_parts();
  mm->set_tag("mm");
  mm->set_count_a(8);
  mm->set_total_a_ns(4'000);
  v1::FusionPart* gelu = f->add_parts();
  gelu->set_tag("gelu");
  gelu->set_missing_in_a(true);
  *c.add_unfused_rows() = c.rows(0);
  c.mutable_unfused_rows(0)->set_key("rest");
  c.set_total_a_ns(9'000);
  c.set_total_b_ns(6'100);
  return c;
}

TEST(DiffTableTest, Fusions_GroupThenFusedOpThenParts_ThenUnfusedRows) {
  const auto lines =
      SplitLines(RenderDiffTable(WithFusion(), v1::GROUP_BY_NAME, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[0].rfind("FUSED IN B / PARTS", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("OPS SAVED"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("fused_matmul_gelu ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("-1.00 µs"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("0.750x"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].substr(lines[1].size() - 2), " 4") << lines[1];
  EXPECT_EQ(lines[2].rfind("  (fused op) ", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("  mm ", 0), 0u) << lines[3];
  EXPECT_NE(lines[3].find("4.00 µs"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4].rfind("  gelu ", 0), 0u) << lines[4];
  EXPECT_NE(lines[4].find("missing in A"), std::string::npos) << lines[4];
  EXPECT_EQ(lines[5], "");
  EXPECT_EQ(lines[6].rfind("NAME", 0), 0u) << lines[6];
  EXPECT_EQ(lines[7].rfind("rest ", 0), 0u) << "the unfused rows, not every row: " << lines[7];
  EXPECT_EQ(lines[8].rfind("total: A 9.00 µs, B 6.10 µs", 0), 0u) << lines[8];
}

TEST(DiffTableTest, Fusions_LongPartTags_FitTheWidth) {
  v1::CompareSessionsResponse c = WithFusion();
  c.mutable_fusions(0)->mutable_parts(0)->set_tag(std::string(300, 'm'));
  c.mutable_fusions(0)->set_parts_not_listed(9'936);
  const std::string table = RenderFusionTable(c, 100, Palette(false));
  for (const std::string& line : SplitLines(table)) {
    EXPECT_LE(DisplayWidth(line), 100u) << line;
  }
  EXPECT_NE(table.find("9936 more parts"), std::string::npos) << table;
}

TEST(DiffSidesTest, Sessions_Numbers_Parsed) {
  DiffOptions options;
  EXPECT_FALSE(ParseDiffSides("12", "13", &options).has_value());
  EXPECT_EQ(options.session_a, 12u);
  EXPECT_EQ(options.session_b, 13u);
}

TEST(DiffSidesTest, Sessions_NotNumbers_UsageErrorNamesArgument) {
  DiffOptions options;
  const std::optional<CliError> error = ParseDiffSides("12", "gpu-7", &options);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->exit_code, kExitUsage);
  EXPECT_NE(error->message.find("B 'gpu-7' is not a session id"), std::string::npos)
      << error->message;
}

TEST(DiffSidesTest, Fleet_Selectors_Parsed) {
  DiffOptions options;
  options.fleet = true;
  EXPECT_FALSE(ParseDiffSides("gpu-3", "label=fused", &options).has_value());
  EXPECT_EQ(options.fleet_a.node(), "gpu-3");
  EXPECT_EQ(options.fleet_b.label(), "fused");
  const std::optional<CliError> error = ParseDiffSides("host=x", "*", &options);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("A 'host=x' is not a fleet selector"), std::string::npos)
      << error->message;
}

}  // namespace
}  // namespace optrace::cli
