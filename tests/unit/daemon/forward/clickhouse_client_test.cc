// ClickHouseClient without a server: credentials never shown, and a
// refused connection known as "not sent".
#include "forward/clickhouse_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "temp_folder.h"

namespace optrace::daemon {
namespace {

TEST(ClickHouseClientTest, RedactedUrl_UserInfo_Removed) {
  EXPECT_EQ(RedactedUrl("http://writer:s3cret@ch1:8123/"), "http://ch1:8123/");
  EXPECT_EQ(RedactedUrl("https://u:p@w@ch1:8443"), "https://ch1:8443");
  EXPECT_EQ(RedactedUrl("http://ch1:8123/?x=a@b"), "http://ch1:8123/?x=a@b");
}

TEST(ClickHouseClientTest, ReadCredentialsFile_UserColonPassword_Split) {
  testing::TempFolder dir;
  const std::string path = dir.path() + "/credentials";
  std::ofstream(path) << "writer:pa:ss\r\nignored\n";
  std::string user, password;
  ASSERT_TRUE(ReadCredentialsFile(path, &user, &password).ok());
  EXPECT_EQ(user, "writer");
  EXPECT_EQ(password, "pa:ss");
}

TEST(ClickHouseClientTest, ReadCredentialsFile_EmptyOrMissing_ErrorNamesFileNotContent) {
  testing::TempFolder dir;
  const std::string path = dir.path() + "/credentials";
  std::ofstream(path) << "\n";
  std::string user, password;
  const Status empty = ReadCredentialsFile(path, &user, &password);
  EXPECT_EQ(empty.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(empty.message().find(path), std::string::npos);
  const Status missing = ReadCredentialsFile(dir.path() + "/absent", &user, &password);
  EXPECT_FALSE(missing.ok());
}

TEST(ClickHouseClientTest, Insert_NothingListening_UnavailableNotSentUrlRedacted) {
  // A port that was free a moment ago: nothing listens there.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ::close(fd);
  ClickHouseEndpoint endpoint;
  endpoint.url = "http://u:secret@127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  auto client = ClickHouseClient::Create(endpoint);
  ASSERT_TRUE(client.ok());
  const Status sent = client.value()->Insert("INSERT INTO t FORMAT RowBinary", "x");
  EXPECT_EQ(sent.code(), Status::Code::kUnavailable);
  EXPECT_EQ(client.value()->failure(), ClickHouseFailure::kNotSent);
  EXPECT_EQ(sent.message().find("secret"), std::string::npos) << sent.message();
  EXPECT_NE(sent.message().find("ClickHouse at http://127.0.0.1:"), std::string::npos)
      << sent.message();
}

}  // namespace
}  // namespace optrace::daemon
