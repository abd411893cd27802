// The `optrace ops` table, of one session and of the fleet.
#include "ops_command.h"

#include <gtest/gtest.h>

#include "subprocess.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

std::vector<v1::Span> TwoSpans() {
  std::vector<v1::Span> spans(2);
  for (int i = 0; i < 2; ++i) {
    spans[i].set_session_id(3 + i);
    spans[i].set_op_id(100 + i);
    spans[i].set_name("matmul");
    spans[i].set_tag("matmul_8x8_f32");
    spans[i].set_start_unix_ns(1'000'000 + i * 2'000'000);
    spans[i].set_duration_ns(1500);
    spans[i].set_status(v1::SPAN_STATUS_OK);
    spans[i].mutable_device()->set_target(v1::TARGET_GPU);
    spans[i].set_node(i == 0 ? "node-a" : "node-b");
  }
  return spans;
}

TEST(OpsTableTest, Session_NoNodeColumn) {
  const auto lines = SplitLines(RenderOpsTable(TwoSpans(), 0, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].find("NODE"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].find("node-a"), std::string::npos) << lines[1];
}

TEST(OpsTableTest, Fleet_NodeAndSessionAfterStart) {
  const auto lines = SplitLines(RenderOpsTable(TwoSpans(), 1'000'000, 0, Palette(false), true));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_LT(lines[0].find("START"), lines[0].find("NODE")) << lines[0];
  EXPECT_LT(lines[0].find("NODE"), lines[0].find("SESSION")) << lines[0];
  EXPECT_LT(lines[0].find("SESSION"), lines[0].find("ID")) << lines[0];
  EXPECT_NE(lines[2].find("node-b"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("+2.00 ms"), std::string::npos) << "from the first span: " << lines[2];
}

TEST(OpsTableTest, Sources_LineTextStrippedAndCutMissingEmpty) {
  std::vector<v1::Span> spans = TwoSpans();
  spans[0].set_source_location("model.py:37");
  spans[1].set_source_location("gone.py:3");
  const SourceTexts sources = {{"model.py:37", "    return self.fc2(x)  "}, {"gone.py:3", ""}};
  const auto lines = SplitLines(RenderOpsTable(spans, 0, 0, Palette(false), false, &sources));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("SOURCE"), std::string::npos) << lines[0];
  EXPECT_TRUE(lines[1].ends_with(" return self.fc2(x)")) << lines[1];
  EXPECT_EQ(lines[2].find("return"), std::string::npos) << lines[2];
  const SourceTexts long_line = {{"model.py:37", std::string(100, 'x')}};
  const auto cut = SplitLines(RenderOpsTable(spans, 0, 0, Palette(false), false, &long_line));
  EXPECT_NE(cut[1].find(std::string(kSourceTextWidth - 1, 'x') + "…"), std::string::npos) << cut[1];
  EXPECT_EQ(SplitLines(RenderOpsTable(spans, 0, 0, Palette(false)))[0].find("SOURCE"),
            std::string::npos);
}

}  // namespace
}  // namespace optrace::cli
