#include "metrics/metrics_text.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::daemon {
namespace {

TEST(MetricsTextTest, EscapeLabelValue_BackslashQuoteNewline_Escaped) {
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(EscapeLabelValue("plain {x=1}"), "plain {x=1}");
}

TEST(MetricsTextTest, CutUtf8_InsideSequence_CutBeforeIt) {
  const std::string text =
      "ab\xC3\xA9"
      "cd";  // "abécd": é is 2 bytes at 2..3
  EXPECT_EQ(CutUtf8(text, 3), "ab");
  EXPECT_EQ(CutUtf8(text, 4), "ab\xC3\xA9");
  EXPECT_EQ(CutUtf8(text, 100), text);
  const std::string euro = "\xE2\x82\xAC\xE2\x82\xAC";  // two 3-byte sequences
  EXPECT_EQ(CutUtf8(euro, 5), "\xE2\x82\xAC");
}

TEST(MetricsTextTest, Malicious_CutUtf8_ContinuationBytesOnly_CutAsBytes) {
  const std::string text(200, '\x80');
  EXPECT_EQ(CutUtf8(text, kMaxLabelValueBytes).size(), kMaxLabelValueBytes);
}

TEST(MetricsTextTest, FamilyAndSamples_TextFormat) {
  MetricsText text;
  text.Family("optrace_x_total", "counter", "a help\\line\nnext");
  text.Sample("optrace_x_total", {}, uint64_t{3});
  text.Sample("optrace_x_total", {{"name", "q\"uote"}, {"target", "gpu"}},
              uint64_t{18446744073709551615u});
  text.Sample("optrace_y", {{"le", "+Inf"}}, 0.25);
  EXPECT_EQ(text.text(),
            "# HELP optrace_x_total a help\\\\line\\nnext\n"
            "# TYPE optrace_x_total counter\n"
            "optrace_x_total 3\n"
            "optrace_x_total{name=\"q\\\"uote\",target=\"gpu\"} 18446744073709551615\n"
            "optrace_y{le=\"+Inf\"} 0.25\n");
}

}  // namespace
}  // namespace optrace::daemon
