// The daemon's bearer tokens for TCP callers (listen_token_dir): one file
// per user, named for the user; every file and the folder checked, by
// owner and mode, before a token is believed.
#include "api/token_table.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "temp_folder.h"

namespace optrace::daemon {
namespace {

constexpr char kRootToken[] = "root-token-0123456789abcdef";
constexpr char kNobodyToken[] = "nobody-token-0123456789abcdef";
constexpr char kNumericToken[] = "numeric-token-0123456789abcdef";

class TokenTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = temp_.path() + "/tokens";
    ASSERT_EQ(::mkdir(folder_.c_str(), 0700), 0);
  }
  std::string Write(const std::string& name, const std::string& content, mode_t mode = 0600) {
    const std::string path = folder_ + "/" + name;
    std::ofstream(path) << content;
    ::chmod(path.c_str(), mode);
    return path;
  }
  Result<TokenTable> Load() { return TokenTable::Load(folder_, ::geteuid()); }

  testing::TempFolder temp_;
  std::string folder_;
};

TEST_F(TokenTableTest, OneFilePerUser_EachTokenFindsItsUid) {
  Write("root", std::string(kRootToken) + "\n");
  Write("nobody", kNobodyToken);
  Write("4242", std::string("  ") + kNumericToken + "\n# a comment line is never read\n");
  Write(".alice.swp", "an editor's file is skipped");
  auto table = Load();
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table.value().size(), 3u);
  EXPECT_EQ(table.value().Find(kRootToken), std::optional<uint32_t>(0));
  EXPECT_EQ(table.value().Find(kNobodyToken), std::optional<uint32_t>(65534));
  EXPECT_EQ(table.value().Find(kNumericToken), std::optional<uint32_t>(4242));
}

TEST_F(TokenTableTest, Malicious_WrongPrefixLongerOrEmptyToken_FindsNobody) {
  Write("root", kRootToken);
  auto table = Load();
  ASSERT_TRUE(table.ok()) << table.status().message();
  const std::string token = kRootToken;
  EXPECT_EQ(table.value().Find(""), std::nullopt);
  EXPECT_EQ(table.value().Find(token.substr(0, token.size() - 1)), std::nullopt);
  EXPECT_EQ(table.value().Find(token + "x"), std::nullopt);
  std::string flipped = token;
  flipped[3] ^= 1;
  EXPECT_EQ(table.value().Find(flipped), std::nullopt);
}

TEST_F(TokenTableTest, Malicious_FileReadableByGroupOrOthers_RefusedNamingFileAndMode) {
  for (const mode_t mode : {0640, 0604, 0644, 0660}) {
    const std::string path = Write("root", kRootToken, mode);
    auto table = Load();
    ASSERT_FALSE(table.ok()) << std::oct << mode;
    const std::string& message = table.status().message();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    EXPECT_NE(message.find(std::string("with mode ") + octal), std::string::npos) << message;
    EXPECT_EQ(message.find(kRootToken), std::string::npos) << message;
  }
}

TEST_F(TokenTableTest, Malicious_FolderWritableByOthers_Refused) {
  Write("root", kRootToken);
  ASSERT_EQ(::chmod(folder_.c_str(), 0777), 0);
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(folder_ + " is owned by"), std::string::npos)
      << table.status().message();
  EXPECT_NE(table.status().message().find("0777"), std::string::npos);
}

TEST_F(TokenTableTest, Malicious_FileOwnedByAnotherUser_Refused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  const std::string path = Write("root", kRootToken);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(path + " is owned by uid 65534"), std::string::npos)
      << table.status().message();
}

TEST_F(TokenTableTest, Malicious_SymlinkInFolder_Refused) {
  const std::string target = temp_.path() + "/elsewhere";
  std::ofstream(target) << kRootToken;
  ::chmod(target.c_str(), 0600);
  ASSERT_EQ(::symlink(target.c_str(), (folder_ + "/root").c_str()), 0);
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("not a regular file"), std::string::npos)
      << table.status().message();
}

TEST_F(TokenTableTest, FileNamedForNoUser_RefusedNamingIt) {
  const std::string path = Write("no-such-user-optrace-test", kRootToken);
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(path + " is named for no user"), std::string::npos)
      << table.status().message();
}

TEST_F(TokenTableTest, Malicious_ShortToken_Refused) {
  const std::string path = Write("root", "short");
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(path), std::string::npos);
  EXPECT_NE(table.status().message().find("shorter than 16"), std::string::npos)
      << table.status().message();
}

TEST_F(TokenTableTest, SameTokenInTwoFiles_RefusedNamingBoth) {
  const std::string a = Write("nobody", kRootToken);
  const std::string b = Write("root", kRootToken);
  auto table = Load();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(a + " and " + b), std::string::npos)
      << table.status().message();
}

TEST_F(TokenTableTest, EmptyOrMissingFolder_Refused) {
  auto empty = Load();
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("holds no token file"), std::string::npos);
  auto missing = TokenTable::Load(folder_ + "/absent", ::geteuid());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(folder_ + "/absent"), std::string::npos);
}

}  // namespace
}  // namespace optrace::daemon
