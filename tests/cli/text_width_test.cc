#include "text_width.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(DisplayWidthTest, Utf8_CodePointsCounted) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("matmul"), 6u);
  EXPECT_EQ(DisplayWidth("1.23 µs"), 7u);
  EXPECT_EQ(DisplayWidth("██▌"), 3u);
}

TEST(FitToWidthTest, Fits_Unchanged) {
  EXPECT_EQ(FitToWidth("matmul", 6), "matmul");
  EXPECT_EQ(FitToWidth("matmul", 60), "matmul");
}

TEST(FitToWidthTest, TooWide_CutWithEllipsis) {
  EXPECT_EQ(FitToWidth("matmul_128x256x512_f32", 10), "matmul_12…");
  EXPECT_EQ(DisplayWidth(FitToWidth("matmul_128x256x512_f32", 10)), 10u);
  EXPECT_EQ(FitToWidth("abc", 1), "…");
  EXPECT_EQ(FitToWidth("abc", 0), "");
}

TEST(FitToWidthTest, MultiByteCodePoint_NeverSplit) { EXPECT_EQ(FitToWidth("µµµµ", 3), "µµ…"); }

}  // namespace
}  // namespace optrace::cli
