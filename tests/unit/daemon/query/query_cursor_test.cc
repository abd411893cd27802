// QueryCursor: round trips, and client-made cursors refused.
#include "query/query_cursor.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace optrace::daemon {
namespace {

TEST(QueryCursorTest, EncodeDecode_Extremes_RoundTrip) {
  const QueryCursor cursors[] = {
      {0, 0, 1},
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(), 1},
      {std::numeric_limits<int64_t>::max(), 12, std::numeric_limits<uint64_t>::max()},
      {-5, 7, 3},
  };
  for (const QueryCursor& c : cursors) {
    Result<QueryCursor> back = DecodeCursor(EncodeCursor(c));
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->start_ns, c.start_ns);
    EXPECT_EQ(back->op_id, c.op_id);
    EXPECT_EQ(back->sent_at_key, c.sent_at_key);
  }
}

TEST(QueryCursorTest, Malicious_NotADaemonCursor_InvalidArgumentQuotingIt) {
  const std::string bad[] = {"",
                             ":",
                             "1:2",
                             "1:2:",
                             "1:2:3:4",
                             "a:2:3",
                             "1:b:3",
                             "1:2:c",
                             " 1:2:3",
                             "1:2:3 ",
                             "1:-2:3",
                             "1:2:-3",
                             "1:2:0",
                             "+1:2:3",
                             "1::3",
                             "99999999999999999999:1:1",
                             std::string("1:2:3\0", 6),
                             std::string(5000, '9')};
  for (const std::string& text : bad) {
    Result<QueryCursor> cursor = DecodeCursor(text);
    ASSERT_FALSE(cursor.ok()) << text;
    EXPECT_EQ(cursor.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(cursor.status().message().find("is not one this daemon returned"), std::string::npos);
    EXPECT_LT(cursor.status().message().size(), 300u) << "long cursors are quoted cut short";
  }
}

}  // namespace
}  // namespace optrace::daemon
