// Token files as optraced and its clients read them (common/bearer_token.h):
// the first line, trimmed; refused, by name and mode, when other users
// could read or replace them; and the "Bearer TOKEN" header value.
#include "common/bearer_token.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace optrace {
namespace {

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
  auto token = ReadTokenFile(path_, "--token-file");
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token.value(), "s3cret");
}

TEST_F(TokenFileTest, GroupReadable_Accepted) {
  Write("s3cret", 0640);
  auto token = ReadTokenFile(path_, "metrics_token_file");
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token.value(), "s3cret");
}

TEST_F(TokenFileTest, Malicious_ReadableOrWritableByOthers_RefusedNamingFileAndModeNotToken) {
  for (const mode_t mode : {0644, 0604, 0602, 0620, 0666}) {
    Write("s3cret\n", mode);
    auto token = ReadTokenFile(path_, "--token-file");
    ASSERT_FALSE(token.ok()) << std::oct << mode;
    const std::string& message = token.status().message();
    EXPECT_EQ(token.status().code(), Status::Code::kPermissionDenied);
    EXPECT_NE(message.find("--token-file " + path_), std::string::npos) << message;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    EXPECT_NE(message.find(std::string("with mode ") + octal), std::string::npos) << message;
    EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
  }
}

TEST_F(TokenFileTest, EmptyMissingOrFolder_RefusedNamingFile) {
  Write("\n", 0600);
  auto empty = ReadTokenFile(path_, "--token-file");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty first line"), std::string::npos);
  auto missing = ReadTokenFile(path_ + ".absent", "--token-file");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path_ + ".absent"), std::string::npos);
  auto folder = ReadTokenFile("/tmp", "--token-file");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("not a regular file"), std::string::npos);
}

TEST_F(TokenFileTest, Malicious_SpaceControlOrLongToken_Refused) {
  for (const std::string& bad :
       {std::string("two words\n"), std::string("tab\x01here\n"), std::string("caf\xc3\xa9\n"),
        std::string(kMaxTokenBytes + 1, 'a') + "\n", std::string(kMaxTokenBytes + 10, 'a')}) {
    Write(bad, 0600);
    auto token = ReadTokenFile(path_, "--token-file");
    EXPECT_FALSE(token.ok()) << bad.size();
    if (!token.ok()) {
      EXPECT_NE(token.status().message().find(path_), std::string::npos);
    }
  }
  Write(std::string(kMaxTokenBytes, 'a'), 0600);
  EXPECT_TRUE(ReadTokenFile(path_, "--token-file").ok());
}

TEST(BearerTokenTest, Malicious_BearerTokenMatches_OnlyExact) {
  EXPECT_TRUE(BearerTokenMatches("Bearer abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Bearer abd", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Bearer abcd", "abc"));
  EXPECT_FALSE(BearerTokenMatches("bearer abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("Basic abc", "abc"));
  EXPECT_FALSE(BearerTokenMatches("", "abc"));
  EXPECT_FALSE(BearerTokenMatches(std::string(5000, 'B'), "abc"));
}

TEST(BearerTokenTest, BearerCredential_TakesWhatFollowsTheScheme) {
  EXPECT_EQ(BearerCredential("Bearer abc"), std::optional<std::string_view>("abc"));
  EXPECT_EQ(BearerCredential("Bearer "), std::optional<std::string_view>(""));
  EXPECT_EQ(BearerCredential("Bearerabc"), std::nullopt);
  EXPECT_EQ(BearerCredential("Token abc"), std::nullopt);
}

}  // namespace
}  // namespace optrace
