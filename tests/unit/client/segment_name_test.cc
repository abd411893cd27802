#include "common/segment_name.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(SegmentNameTest, FormatThenParse_RoundTrips) {
  SegmentName name{"optrace", 1000, 4242, 0x00ab00cd00ef0012ULL};
  EXPECT_EQ(name.Format(), "optrace.1000.4242.00ab00cd00ef0012");
  const auto parsed = SegmentName::Parse(name.Format());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->ns, "optrace");
  EXPECT_EQ(parsed->uid, 1000u);
  EXPECT_EQ(parsed->pid, 4242u);
  EXPECT_EQ(parsed->nonce, 0x00ab00cd00ef0012ULL);
}

TEST(SegmentNameTest, Malicious_NonCanonicalOrForeignNames_Rejected) {
  for (const char* bad : {"", "optrace", "optrace.1.2", "optrace.1.2.3",
                          "optrace.01.2.00000000000000aa", "optrace.1.0.00000000000000aa",
                          "optrace.-1.2.00000000000000aa", "optrace.1.2.00000000000000AA",
                          "optrace.1.2.00000000000000zz", "opt.race.1.2.00000000000000aa",
                          "optrace.control.0", ".1.2.00000000000000aa",
                          "optrace.99999999999.2.00000000000000aa", "sem.optrace.1.2.3"}) {
    EXPECT_FALSE(SegmentName::Parse(bad).has_value()) << bad;
  }
}

TEST(SegmentNameTest, Namespace_OnlySafeCharacters) {
  EXPECT_TRUE(IsValidNamespace("optrace"));
  EXPECT_TRUE(IsValidNamespace("test_ns-2"));
  EXPECT_FALSE(IsValidNamespace(""));
  EXPECT_FALSE(IsValidNamespace("a.b"));
  EXPECT_FALSE(IsValidNamespace("a/b"));
  EXPECT_FALSE(IsValidNamespace(std::string(65, 'a')));
}

TEST(SegmentNameTest, ControlSegmentName_IsNotASegmentName) {
  EXPECT_EQ(ControlSegmentName("optrace", 1000), "optrace.control.1000");
  EXPECT_FALSE(SegmentName::Parse(ControlSegmentName("optrace", 1000)).has_value());
}

}  // namespace
}  // namespace optrace
