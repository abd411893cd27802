// Which hosts are loopback, for plaintext gRPC: parsed as addresses (issue
// 29, finding 2), so that a name which starts like one is not.
#include "common/loopback_host.h"

#include <gtest/gtest.h>

namespace optrace {
namespace {

TEST(LoopbackHostTest, LoopbackAddressesAndLocalhost_Recognised_NamesNot) {
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("[::1]"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("example.com"));
  EXPECT_FALSE(IsLoopbackHost("1127.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("127.evil.com"));
  EXPECT_FALSE(IsLoopbackHost("127.0.0.1.evil.com"));
  EXPECT_FALSE(IsLoopbackHost("[127.0.0.1]"));
  EXPECT_FALSE(IsLoopbackHost("::"));
}

}  // namespace
}  // namespace optrace
