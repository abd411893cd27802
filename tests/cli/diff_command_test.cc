#include "diff_command.h"

#include <gtest/gtest.h>

#include "exit_codes.h"
#include "subprocess.h"

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
