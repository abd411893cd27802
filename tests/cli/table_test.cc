#include "table.h"

#include <gtest/gtest.h>

#include "subprocess.h"
#include "text_width.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

Table NameCountTable() {
  Table table({{"NAME", Align::kLeft, true}, {"COUNT", Align::kRight}});
  table.AddRow({"matmul_128x256x512_f32", "12"});
  table.AddRow({"add", "3456"});
  return table;
}

TEST(TableTest, NoLimit_ColumnsAligned) {
  const std::string text = NameCountTable().Render(0, Palette(false));
  EXPECT_EQ(text,
            "NAME                    COUNT\n"
            "matmul_128x256x512_f32     12\n"
            "add                      3456\n");
}

TEST(TableTest, NarrowOutput_ShrinkableColumnCutWithEllipsis) {
  const std::string text = NameCountTable().Render(20, Palette(false));
  const auto lines = SplitLines(text);
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) EXPECT_LE(DisplayWidth(line), 20u) << line;
  EXPECT_EQ(lines[1], "matmul_128x2…     12");
  EXPECT_EQ(lines[2], "add             3456");
}

TEST(TableTest, VeryNarrowOutput_ColumnStopsAtMinimum) {
  const auto lines = SplitLines(NameCountTable().Render(5, Palette(false)));
  EXPECT_EQ(lines[1], "matmul_…     12");
}

TEST(TableTest, NonShrinkableColumns_NeverCut) {
  Table table({{"ID", Align::kRight}, {"EXECUTABLE", Align::kLeft}});
  table.AddRow({"1", "/a/very/long/path/to/a/runtime"});
  EXPECT_NE(table.Render(10, Palette(false)).find("/a/very/long/path/to/a/runtime"),
            std::string::npos);
}

TEST(TableTest, Colours_AppliedAfterPadding) {
  Table table({{"STATE", Align::kLeft}, {"N", Align::kRight}});
  table.AddRow({Cell("crashed", Tone::kProblem), "1"});
  const auto lines = SplitLines(table.Render(0, Palette(true)));
  // Padding stays outside the escape codes, so columns still line up.
  EXPECT_EQ(lines[1], "\x1b[1;31mcrashed\x1b[0m  1");
  EXPECT_EQ(lines[0], "\x1b[1mSTATE\x1b[0m    \x1b[1mN\x1b[0m");
}

TEST(TableTest, TrailingSpaces_Trimmed) {
  Table table({{"A", Align::kLeft}, {"LONGHEADER", Align::kLeft}});
  table.AddRow({"x", ""});
  for (const std::string& line : SplitLines(table.Render(0, Palette(false)))) {
    EXPECT_NE(line.back(), ' ') << "[" << line << "]";
  }
}

}  // namespace
}  // namespace optrace::cli
