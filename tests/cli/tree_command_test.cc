#include "tree_command.h"

#include <gtest/gtest.h>

#include <regex>

#include "subprocess.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

v1::GetTreeResponse StepTree() {
  v1::GetTreeResponse tree;
  tree.set_total_ns(3'000'000);
  tree.set_spans(9);
  auto add = [&](uint32_t depth, const char* name, const char* tag, uint64_t count, uint64_t total,
                 uint64_t self) {
    v1::TreeNode* node = tree.add_nodes();
    node->set_depth(depth);
    node->set_name(name);
    node->set_tag(tag);
    node->set_count(count);
    node->set_total_ns(total);
    node->set_self_ns(self);
    node->set_share(static_cast<double>(total) / 3e6);
    node->set_self_share(static_cast<double>(self) / 3e6);
  };
  add(0, "Optimizer.step#SGD.step", "", 3, 3'000'000, 600'000);
  add(1, "aten::add_", "add_16x32_f32", 6, 2'400'000, 2'400'000);
  return tree;
}

TEST(TreeTableTest, Nodes_IndentedByDepthWithTagsAndShares) {
  const auto lines = SplitLines(RenderTreeTable(StepTree(), 0));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(" *TOTAL +SELF +SHARE +SELF% +COUNT +OP")))
      << lines[0];
  EXPECT_NE(lines[1].find("3.00 ms   600 µs  100.0%  20.0%      3  Optimizer.step#SGD.step"),
            std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find("      6    aten::add_ [add_16x32_f32]"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3], "9 spans, 3.00 ms in ops");
}

TEST(TreeTableTest, LeftOut_SaidOnTheLastLine) {
  v1::GetTreeResponse tree = StepTree();
  tree.set_nodes_left_out(4);
  EXPECT_EQ(SplitLines(RenderTreeTable(tree, 0)).back(),
            "9 spans, 3.00 ms in ops; 4 smaller or deeper nodes left out (--min-share 0 --depth "
            "0: all)");
  EXPECT_EQ(RenderTreeTable(v1::GetTreeResponse(), 0), "no spans match\n");
}

TEST(ParsePercentageTest, PercentagesFrom0To100_Fractions) {
  EXPECT_EQ(ParsePercentage("0.5"), 0.005);
  EXPECT_EQ(ParsePercentage("1%"), 0.01);
  EXPECT_EQ(ParsePercentage("100"), 1.0);
  EXPECT_EQ(ParsePercentage("0"), 0.0);
  for (const char* bad : {"", "%", "-1", "101", "1x", "nan", "1%%"}) {
    EXPECT_FALSE(ParsePercentage(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace optrace::cli
