// Which --listen addresses may be served without TLS: loopback addresses
// only, parsed as addresses (issue 29, finding 2), never a name that merely
// starts like one.
#include "api/api_server.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

TEST(IsLoopbackAddressTest, LoopbackAddresses_Accepted) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:7070"));
  EXPECT_TRUE(IsLoopbackAddress("127.255.0.9:1"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:7070"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:7070"));
}

TEST(IsLoopbackAddressTest, Malicious_NamesAndOtherAddresses_Refused) {
  EXPECT_FALSE(IsLoopbackAddress("127.evil.com:7070"));
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.1.evil.com:7070"));
  EXPECT_FALSE(IsLoopbackAddress("127.:7070"));
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.256:7070"));
  EXPECT_FALSE(IsLoopbackAddress("128.0.0.1:7070"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:7070"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:7070"));
  EXPECT_FALSE(IsLoopbackAddress("[::2]:7070"));
  EXPECT_FALSE(IsLoopbackAddress("localhost.evil.com:7070"));
  EXPECT_FALSE(IsLoopbackAddress("127.0.0.1"));  // no port
  EXPECT_FALSE(IsLoopbackAddress("::1:7070"));   // no brackets: which ':' is the port's?
}

}  // namespace
}  // namespace optrace::daemon
