#include "bar.h"

#include <gtest/gtest.h>

#include <cmath>

#include "text_width.h"

namespace optrace::cli {
namespace {

TEST(RenderBarTest, Full_WidthOfFullBlocks) {
  EXPECT_EQ(RenderBar(1.0, 4), "████");
  EXPECT_EQ(RenderBar(2.0, 4), "████");  // clamped
}

TEST(RenderBarTest, Half_HalfTheWidth) { EXPECT_EQ(RenderBar(0.5, 4), "██"); }

TEST(RenderBarTest, Fraction_PartialBlockAtTheEnd) {
  EXPECT_EQ(RenderBar(0.5 + 1.0 / 16, 4), "██▎");  // 2.25 columns: two and a quarter
  EXPECT_LE(DisplayWidth(RenderBar(0.99, 10)), 10u);
}

TEST(RenderBarTest, TinyButPresent_ThinnestBlock) { EXPECT_EQ(RenderBar(0.0001, 20), "▏"); }

TEST(RenderBarTest, ZeroOrInvalid_Empty) {
  EXPECT_EQ(RenderBar(0.0, 20), "");
  EXPECT_EQ(RenderBar(-1.0, 20), "");
  EXPECT_EQ(RenderBar(0.5, 0), "");
  EXPECT_EQ(RenderBar(std::nan(""), 20), "");
}

}  // namespace
}  // namespace optrace::cli
