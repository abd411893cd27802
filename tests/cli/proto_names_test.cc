#include "proto_names.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(ProtoNamesTest, Levels_RoundTrip) {
  for (int l = v1::LEVEL_OFF; l <= v1::LEVEL_TRACE; ++l) {
    const auto level = static_cast<v1::Level>(l);
    EXPECT_EQ(ParseLevelWord(LevelWord(level)), level) << l;
  }
  EXPECT_EQ(LevelWord(v1::LEVEL_TRACE), "trace");
  EXPECT_EQ(LevelWord(v1::LEVEL_OFF), "off");
  EXPECT_EQ(LevelWord(v1::LEVEL_UNSPECIFIED), "-");
}

TEST(ProtoNamesTest, LevelWords_AsUsersTypeThem) {
  EXPECT_EQ(ParseLevelWord("TRACE"), v1::LEVEL_TRACE);
  EXPECT_EQ(ParseLevelWord("warn"), v1::LEVEL_WARNING);
  EXPECT_EQ(ParseLevelWord("loud"), std::nullopt);
}

TEST(ProtoNamesTest, Targets_RoundTrip) {
  EXPECT_EQ(ParseTargetWord("gpu"), v1::TARGET_GPU);
  EXPECT_EQ(ParseTargetWord("cpu"), v1::TARGET_CPU);
  EXPECT_EQ(ParseTargetWord("other"), v1::TARGET_OTHER);
  EXPECT_EQ(ParseTargetWord("tpu"), std::nullopt);
  EXPECT_EQ(TargetWord(v1::TARGET_UNSPECIFIED), "none");
  EXPECT_EQ(TargetWordList(), "cpu, gpu, other");
}

TEST(ProtoNamesTest, Device_TargetOrdinalAndStream) {
  v1::Device d;
  d.set_target(v1::TARGET_GPU);
  d.set_ordinal(1);
  d.set_stream(7);
  EXPECT_EQ(DeviceWord(d), "gpu:1");
  EXPECT_EQ(DeviceWord(d, true), "gpu:1/s7");
  d.set_stream(0);
  EXPECT_EQ(DeviceWord(d, true), "gpu:1");
}

TEST(ProtoNamesTest, Words_ParsedOrRejected) {
  EXPECT_EQ(ParseSpanStatusWord("incomplete"), v1::SPAN_STATUS_INCOMPLETE);
  EXPECT_EQ(ParseSpanStatusWord("broken"), std::nullopt);
  EXPECT_EQ(ParseGroupByWord("target"), v1::GROUP_BY_TARGET);
  EXPECT_EQ(ParseCompareByWord("tag"), v1::GROUP_BY_TAG);
  EXPECT_EQ(ParseCompareByWord("target"), std::nullopt);  // two sessions: name or tag
  EXPECT_EQ(ExportFormatWordList(), "chrome, perfetto, csv, sqlite");
  EXPECT_EQ(ParseExportFormatWord("perfetto"), v1::EXPORT_FORMAT_PERFETTO);
  EXPECT_EQ(ParseExportFormatWord("chrome"), v1::EXPORT_FORMAT_CHROME_JSON);
  EXPECT_EQ(ParseExportFormatWord("pdf"), std::nullopt);
  EXPECT_EQ(SessionStateWord(v1::SESSION_STATE_EXITED), "exited");
  EXPECT_EQ(SessionStateWord(static_cast<v1::SessionState>(99)), "unknown");
}

}  // namespace
}  // namespace optrace::cli
