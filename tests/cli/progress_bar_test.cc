#include "progress_bar.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace optrace::cli {
namespace {

TEST(FormatProgressTest, Half_BarPercentAndCounts) {
  EXPECT_EQ(FormatProgress("exporting", 50, 100, "spans"),
            "exporting  ███████████████                  50%  50 / 100 spans");
}

TEST(FormatProgressTest, UnknownTotal_CountOnly) {
  EXPECT_EQ(FormatProgress("exporting", 7, 0, "spans"), "exporting  7 spans");
}

TEST(FormatProgressTest, DoneBeyondTotal_Clamped) {
  EXPECT_NE(FormatProgress("x", 12, 10, "spans").find("100%"), std::string::npos);
}

TEST(ProgressBarTest, Disabled_PrintsNothing) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar bar(out, false, "exporting", "spans");
    bar.Update(1, 2);
  }
  EXPECT_EQ(std::ftell(out), 0);
  std::fclose(out);
}

TEST(ProgressBarTest, Enabled_RedrawsInPlaceAndClears) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  {
    ProgressBar bar(out, true, "exporting", "spans");
    bar.Update(1, 2);
    bar.Update(2, 2);  // the last one is always drawn
  }
  std::rewind(out);
  char buffer[1024] = {};
  const size_t n = std::fread(buffer, 1, sizeof buffer - 1, out);
  const std::string text(buffer, n);
  std::fclose(out);
  EXPECT_EQ(text.rfind("\r", 0), 0u);
  EXPECT_NE(text.find("2 / 2 spans"), std::string::npos);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");
}

}  // namespace
}  // namespace optrace::cli
