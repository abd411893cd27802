#include "common/constant_time.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace {
namespace {

TEST(ConstantTimeTest, Equal_True) {
  EXPECT_TRUE(ConstantTimeEquals("abc123", "abc123"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
}

TEST(ConstantTimeTest, DifferAnywhere_False) {
  const std::string secret(64, 'a');
  for (size_t i = 0; i < secret.size(); ++i) {
    std::string guess = secret;
    guess[i] = 'b';
    EXPECT_FALSE(ConstantTimeEquals(guess, secret)) << i;
  }
}

TEST(ConstantTimeTest, Malicious_PrefixOrLonger_False) {
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("abcde", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals(std::string("ab\0d", 4), "abcd"));
}

}  // namespace
}  // namespace optrace
