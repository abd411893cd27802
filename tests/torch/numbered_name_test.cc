// Which user scope names carry a counter, and how they split.
#include "torch/numbered_name.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::torch_ops {
namespace {

// "stem|number" of a split name, "whole" of a name kept whole.
std::string Split(std::string_view name) {
  const std::optional<NumberedName> split = SplitNumberedName(name);
  if (!split) return "whole";
  return std::string(split->stem) + "|" + std::to_string(split->number);
}

TEST(NumberedNameTest, ProfilerStep_StemAndNumber) {
  EXPECT_EQ(Split("ProfilerStep#17"), "ProfilerStep#|17");
  EXPECT_EQ(Split("ProfilerStep#0"), "ProfilerStep#|0");
}

TEST(NumberedNameTest, SeveralHashes_SplitAtTheLast) { EXPECT_EQ(Split("a#b#3"), "a#b#|3"); }

TEST(NumberedNameTest, NothingBeforeTheHash_StemIsTheHash) { EXPECT_EQ(Split("#12"), "#|12"); }

TEST(NumberedNameTest, OptimizerScopes_KeptWhole) {
  EXPECT_EQ(Split("Optimizer.step#SGD.step"), "whole");
  EXPECT_EQ(Split("Optimizer.zero_grad#SGD.zero_grad"), "whole");
}

TEST(NumberedNameTest, NoDigitsOrNotOnlyDigits_KeptWhole) {
  for (const std::string_view name :
       {"", "my_block", "#", "step#", "#12a", "step#-3", "step#+3", "step#1 ", "a#3#b"}) {
    EXPECT_EQ(Split(name), "whole") << name;
  }
}

TEST(NumberedNameTest, LeadingZero_KeptWholeSoThatTheSplitIsLossless) {
  EXPECT_EQ(Split("step#07"), "whole");
  EXPECT_EQ(Split("step#00"), "whole");
}

TEST(NumberedNameTest, Int64Max_Splits) {
  EXPECT_EQ(Split("step#9223372036854775807"), "step#|9223372036854775807");
}

TEST(NumberedNameTest, BeyondInt64OrUint64_KeptWhole) {
  EXPECT_EQ(Split("step#9223372036854775808"), "whole");   // 2^63
  EXPECT_EQ(Split("step#18446744073709551615"), "whole");  // 2^64 - 1
  EXPECT_EQ(Split("step#18446744073709551616"), "whole");  // 2^64
  EXPECT_EQ(Split("step#" + std::string(400, '9')), "whole");
}

TEST(NumberedNameTest, StemBorrowsFromTheName) {
  const std::string name = "ProfilerStep#5";
  const std::optional<NumberedName> split = SplitNumberedName(name);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->stem.data(), name.data());
}

}  // namespace
}  // namespace optrace::torch_ops
