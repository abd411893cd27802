#include "optrace/reader/text_sanitizer.h"

#include <gtest/gtest.h>

#include "common/level_names.h"
#include "common/op_line.h"

namespace optrace {
namespace {

using reader::SanitizeText;

TEST(TextSanitizerTest, ValidUtf8_Unchanged) {
  EXPECT_EQ(SanitizeText("matmul_128x256x512_f32"), "matmul_128x256x512_f32");
  EXPECT_EQ(SanitizeText("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80"),
            "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80");
}

TEST(TextSanitizerTest, Malicious_ControlsAndInvalidBytes_Replaced) {
  EXPECT_EQ(SanitizeText("a\nb\x1b[31mc\x7f"), "a?b?[31mc?");
  EXPECT_EQ(SanitizeText("\xFF"), "\xEF\xBF\xBD");
  EXPECT_EQ(SanitizeText("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");        // overlong '/'
  EXPECT_EQ(SanitizeText("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(SanitizeText("\xC2\x9B"), "\xEF\xBF\xBD\xEF\xBF\xBD");        // C1 CSI
  EXPECT_EQ(SanitizeText("ab\xE2\x9C"), "ab\xEF\xBF\xBD\xEF\xBF\xBD");    // truncated
}

TEST(TextSanitizerTest, StopAtNul_ForPaddedFields) {
  EXPECT_EQ(SanitizeText(std::string("label\0junk", 10), true), "label");
  EXPECT_EQ(SanitizeText(std::string("a\0b", 3), false), "a?b");
}

TEST(LevelNamesTest, ParseNamesNumbersAndWarn) {
  EXPECT_EQ(ParseLevel("trace"), abi::LevelValue::kTrace);
  EXPECT_EQ(ParseLevel("TRACE"), abi::LevelValue::kTrace);
  EXPECT_EQ(ParseLevel("warn"), abi::LevelValue::kWarning);
  EXPECT_EQ(ParseLevel("0"), abi::LevelValue::kOff);
  EXPECT_FALSE(ParseLevel("loud").has_value());
  EXPECT_FALSE(ParseLevel("6").has_value());
  EXPECT_FALSE(ParseLevel("").has_value());
  EXPECT_EQ(LevelName(abi::LevelValue::kDebug), "debug");
}

TEST(OpLineTest, DesignFormat_Exact) {
  EXPECT_EQ(FormatOpLine(abi::EventKind::kLaunch, "elementwise", 40028, abi::TargetKind::kCpu, 0),
            "[OP] LAUNCH elementwise [id=40028] target=cpu:0");
  EXPECT_EQ(FormatOpLine(abi::EventKind::kComplete, "matmul", 7, abi::TargetKind::kGpu, 3),
            "[OP] COMPLETE matmul [id=7] target=gpu:3");
  EXPECT_EQ(FormatOpLine(abi::EventKind::kCounter, "pool_bytes", 0, abi::TargetKind::kNone, 0, -5),
            "[COUNTER] pool_bytes value=-5");
}

}  // namespace
}  // namespace optrace
