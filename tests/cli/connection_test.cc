#include "connection.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "exit_codes.h"

namespace optrace::cli {
namespace {

TEST(ConnectionTest, Socket_AddressIsThePath) {
  CliError error;
  const auto c = Connection::Open({"/tmp/x/optraced.sock", "", ""}, &error);
  ASSERT_NE(c, nullptr) << error.message;
  EXPECT_EQ(c->address(), "/tmp/x/optraced.sock");
}

TEST(ConnectionTest, NoSocketGiven_OptraceSocketEnvironment) {
  ::setenv("OPTRACE_SOCKET", "/tmp/from-env.sock", 1);
  CliError error;
  const auto c = Connection::Open({}, &error);
  ::unsetenv("OPTRACE_SOCKET");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->address(), "/tmp/from-env.sock");
}

TEST(ConnectionTest, LoopbackServer_Plaintext) {
  CliError error;
  const auto c = Connection::Open({"", "localhost:7070", ""}, &error);
  ASSERT_NE(c, nullptr) << error.message;
  EXPECT_EQ(c->address(), "localhost:7070");
  EXPECT_NE(Connection::Open({"", "[::1]:7070", ""}, &error), nullptr) << error.message;
}

TEST(ConnectionTest, RemotePlaintext_RefusedNamingTlsCa) {
  CliError error;
  EXPECT_EQ(Connection::Open({"", "10.1.2.3:7070", ""}, &error), nullptr);
  EXPECT_EQ(error.exit_code, kExitUsage);
  EXPECT_NE(error.message.find("--tls-ca"), std::string::npos) << error.message;
}

TEST(ConnectionTest, MalformedServer_Refused) {
  for (const char* server : {"localhost", "localhost:", ":7070", "localhost:http", "::1:7070"}) {
    CliError error;
    EXPECT_EQ(Connection::Open({"", server, ""}, &error), nullptr) << server;
    EXPECT_EQ(error.exit_code, kExitUsage);
    EXPECT_NE(error.message.find("HOST:PORT"), std::string::npos) << error.message;
  }
}

TEST(ConnectionTest, UnreadableTlsCa_Refused) {
  CliError error;
  EXPECT_EQ(Connection::Open({"", "example.com:443", "/nonexistent/ca.pem"}, &error), nullptr);
  EXPECT_NE(error.message.find("/nonexistent/ca.pem"), std::string::npos) << error.message;
}

TEST(ConnectionTest, TlsCaWithoutServer_Refused) {
  CliError error;
  EXPECT_EQ(Connection::Open({"/tmp/s.sock", "", "/etc/hostname"}, &error), nullptr);
  EXPECT_EQ(error.exit_code, kExitUsage);
}

}  // namespace
}  // namespace optrace::cli
