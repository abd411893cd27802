#include "metrics/metrics_access.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace optrace::daemon {
namespace {

TEST(MetricsAccessTest, ParseAddress_Forms) {
  auto v4 = ParseMetricsAddress("127.0.0.1:9464");
  ASSERT_TRUE(v4.ok()) << v4.status().message();
  EXPECT_EQ(v4.value().host, "127.0.0.1");
  EXPECT_EQ(v4.value().port, 9464);
  EXPECT_TRUE(v4.value().loopback);
  auto v6 = ParseMetricsAddress("[::1]:1");
  ASSERT_TRUE(v6.ok()) << v6.status().message();
  EXPECT_EQ(v6.value().host, "::1");
  EXPECT_TRUE(v6.value().loopback);
  auto any = ParseMetricsAddress("0.0.0.0:9464");
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any.value().loopback);
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
  auto name = ParseMetricsAddress("127.evil.com:9464");
  ASSERT_TRUE(name.ok());
  EXPECT_FALSE(name.value().loopback);
}

TEST(MetricsAccessTest, Rule_NonLoopbackNeedsTokenOrInsecure) {
  const MetricsAddress loopback{"127.0.0.1", 9464, true};
  const MetricsAddress any{"0.0.0.0", 9464, false};
  EXPECT_TRUE(CheckMetricsAccessRule(loopback, false, false).ok());
  EXPECT_FALSE(CheckMetricsAccessRule(any, false, false).ok());
  EXPECT_TRUE(CheckMetricsAccessRule(any, true, false).ok());
  EXPECT_TRUE(CheckMetricsAccessRule(any, false, true).ok());
}

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/optrace-token-XXXXXX";
    const int fd = ::mkstemp(name);
    ASSERT_GE(fd, 0);
    ::close(fd);
    path_ = name;
  }
  void TearDown() override { ::unlink(path_.c_str()); }
  void Write(const std::string& content, mode_t mode) {
    std::ofstream(path_) << content;
    ::chmod(path_.c_str(), mode);
  }
  std::string path_;
};

TEST_F(TokenFileTest, OwnerOnly_FirstLineTrimmed) {
  Write("  s3cret \nignored\n", 0600);
  auto token = ReadBearerTokenFile(path_);
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token.value(), "s3cret");
}

TEST_F(TokenFileTest, WorldReadable_RefusedNamingFileNotToken) {
  Write("s3cret\n", 0644);
  auto token = ReadBearerTokenFile(path_);
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().message().find(path_), std::string::npos);
  EXPECT_EQ(token.status().message().find("s3cret"), std::string::npos);
}

TEST_F(TokenFileTest, EmptyOrMissing_Refused) {
  Write("\n", 0600);
  EXPECT_FALSE(ReadBearerTokenFile(path_).ok());
  EXPECT_FALSE(ReadBearerTokenFile(path_ + ".absent").ok());
}

TEST(MetricsAccessTest, Malicious_BearerTokenMatches_OnlyExact) {
  EXPECT_TRUE(BearerTokenMatches("Bearer abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Bearer abd", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Bearer abcd", "abc"));
  EXPECT_FALSE(BearerTokenMatches("bearer abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Basic abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("", "abc"));
  EXPECT_FALSE(BearerTokenMatches(std::string(5000, 'B'), "abc"));
}

}  // namespace
}  // namespace optrace::daemon
