#include "metrics/metrics_access.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::daemon {
namespace {

TEST(MetricsAccessTest, ParseAddress_Forms) {
  auto v4 = ParseMetricsAddress("127.0.0.1:9464");
  ASSERT_TRUE(v4.ok()) << v4.status().message();
  EXPECT_EQ(v4.value().host, "127.0.0.1");
  EXPECT_EQ(v4.value().port, 9464);
  auto v6 = ParseMetricsAddress("[::1]:1");
  ASSERT_TRUE(v6.ok()) << v6.status().message();
  EXPECT_EQ(v6.value().host, "::1");
  auto any = ParseMetricsAddress("0.0.0.0:9464");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any.value().host, "0.0.0.0");
}

TEST(MetricsAccessTest, Malicious_ParseAddress_BadForms_ErrorsNameText) {
  for (const char* bad : {"9464", ":9464", "host:", "host:0", "host:65536", "host:12x", "::1:9464",
                          "[::1:9464", "127.evil.com:9464x"}) {
    auto parsed = ParseMetricsAddress(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.status().message().find(bad), std::string::npos);
    }
  }
}

TEST(MetricsAccessTest, Rule_EveryAddressNeedsTokenOrInsecure) {
  for (const MetricsAddress& address :
       {MetricsAddress{"127.0.0.1", 9464}, MetricsAddress{"0.0.0.0", 9464}}) {
    const Status refused = CheckMetricsAccessRule(address, false, false);
    EXPECT_FALSE(refused.ok()) << address.host;
    EXPECT_NE(refused.message().find(address.host), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("metrics_token_file"), std::string::npos);
    EXPECT_TRUE(CheckMetricsAccessRule(address, true, false).ok());
    EXPECT_TRUE(CheckMetricsAccessRule(address, false, true).ok());
  }
}

TEST(MetricsAccessTest, Listener_InsecureWithoutToken_Warns) {
  const v1::Listener with_token = DescribeMetricsListener("127.0.0.1:9464", true, false);
  EXPECT_EQ(with_token.kind(), v1::LISTENER_KIND_METRICS);
  EXPECT_EQ(with_token.address(), "127.0.0.1:9464");
  EXPECT_EQ(with_token.token_users(), 1u);
  EXPECT_FALSE(with_token.unauthenticated());
  EXPECT_TRUE(with_token.warning().empty());
  const v1::Listener insecure = DescribeMetricsListener("0.0.0.0:9464", false, true);
  EXPECT_TRUE(insecure.unauthenticated());
  EXPECT_NE(insecure.warning().find("metrics_insecure"), std::string::npos) << insecure.warning();
}

}  // namespace
}  // namespace optrace::daemon
