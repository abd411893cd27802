// SqlString and friends: every value stays one literal.
#include "forward/sql_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace optrace::daemon {
namespace {

TEST(SqlTextTest, SqlString_PlainText_Quoted) { EXPECT_EQ(SqlString("matmul"), "'matmul'"); }

TEST(SqlTextTest, Malicious_QuotesAndBackslashes_EscapedSoTheLiteralNeverEnds) {
  EXPECT_EQ(SqlString("x' OR 1=1 --"), "'x\\' OR 1=1 --'");
  EXPECT_EQ(SqlString("a\\'b"), "'a\\\\\\'b'");
  EXPECT_EQ(SqlString(std::string("a\0b", 3)), "'a\\0b'");
}

TEST(SqlTextTest, SqlInt_Extremes_TypedLiterals) {
  EXPECT_EQ(SqlInt(std::numeric_limits<int64_t>::min()), "toInt64(-9223372036854775808)");
  EXPECT_EQ(SqlUInt(std::numeric_limits<uint64_t>::max()), "toUInt64(18446744073709551615)");
}

}  // namespace
}  // namespace optrace::daemon
