#include "connection.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "exit_codes.h"

namespace optrace::cli {
namespace {

// Where the daemon is, without TCP credentials.
ConnectionOptions Options(std::string socket = "", std::string server = "",
                          std::string tls_ca = "") {
  ConnectionOptions options;
  options.socket = std::move(socket);
  options.server = std::move(server);
  options.tls_ca = std::move(tls_ca);
  return options;
}

TEST(ConnectionTest, Socket_AddressIsThePath) {
  CliError error;
  const auto c = Connection::Open(Options("/tmp/x/optraced.sock", "", ""), &error);
  ASSERT_NE(c, nullptr) << error.message;
  EXPECT_EQ(c->address(), "/tmp/x/optraced.sock");
}

TEST(ConnectionTest, NoSocketGiven_OptraceSocketEnvironment) {
  ::setenv("OPTRACE_SOCKET", "/tmp/from-env.sock", 1);
  CliError error;
  const auto c = Connection::Open(Options(), &error);
  ::unsetenv("OPTRACE_SOCKET");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->address(), "/tmp/from-env.sock");
}

TEST(ConnectionTest, LoopbackServer_Plaintext) {
  CliError error;
  const auto c = Connection::Open(Options("", "localhost:7070", ""), &error);
  ASSERT_NE(c, nullptr) << error.message;
  EXPECT_EQ(c->address(), "localhost:7070");
  EXPECT_NE(Connection::Open(Options("", "[::1]:7070", ""), &error), nullptr) << error.message;
}

TEST(ConnectionTest, RemotePlaintext_RefusedNamingTlsCa) {
  CliError error;
  EXPECT_EQ(Connection::Open(Options("", "10.1.2.3:7070", ""), &error), nullptr);
  EXPECT_EQ(error.exit_code, kExitUsage);
  EXPECT_NE(error.message.find("--tls-ca"), std::string::npos) << error.message;
}

TEST(ConnectionTest, MalformedServer_Refused) {
  for (const char* server : {"localhost", "localhost:", ":7070", "localhost:http", "::1:7070"}) {
    CliError error;
    EXPECT_EQ(Connection::Open(Options("", server, ""), &error), nullptr) << server;
    EXPECT_EQ(error.exit_code, kExitUsage);
    EXPECT_NE(error.message.find("HOST:PORT"), std::string::npos) << error.message;
  }
}

TEST(ConnectionTest, UnreadableTlsCa_Refused) {
  CliError error;
  EXPECT_EQ(Connection::Open(Options("", "example.com:443", "/nonexistent/ca.pem"), &error),
            nullptr);
  EXPECT_NE(error.message.find("/nonexistent/ca.pem"), std::string::npos) << error.message;
}

TEST(ConnectionTest, TlsCaWithoutServer_Refused) {
  CliError error;
  EXPECT_EQ(Connection::Open(Options("/tmp/s.sock", "", "/etc/hostname"), &error), nullptr);
  EXPECT_EQ(error.exit_code, kExitUsage);
}

TEST(ConnectionTest, TcpCredentialsForTheSocket_RefusedSayingTheUidIsKnown) {
  CliError error;
  ConnectionOptions token;
  token.socket = "/tmp/s.sock";
  token.token_file = "/etc/hostname";
  EXPECT_EQ(Connection::Open(token, &error), nullptr);
  EXPECT_EQ(error.exit_code, kExitUsage);
  EXPECT_NE(error.message.find("--token-file needs --server"), std::string::npos) << error.message;
  ConnectionOptions certificate;
  certificate.tls_cert = "/etc/hostname";
  EXPECT_EQ(Connection::Open(certificate, &error), nullptr);
  EXPECT_NE(error.message.find("--tls-cert needs --server"), std::string::npos) << error.message;
}

TEST(ConnectionTest, TokenFileEnvironment_ReadForServerOnly) {
  ::setenv("OPTRACE_TOKEN_FILE", "/nonexistent/token", 1);
  CliError error;
  const auto socket = Connection::Open(Options("/tmp/x/optraced.sock", "", ""), &error);
  EXPECT_NE(socket, nullptr) << "the socket needs no token: " << error.message;
  const auto server = Connection::Open(Options("", "localhost:7070", ""), &error);
  ::unsetenv("OPTRACE_TOKEN_FILE");
  EXPECT_EQ(server, nullptr);
  EXPECT_EQ(error.exit_code, kExitFailure);
  EXPECT_NE(error.message.find("OPTRACE_TOKEN_FILE /nonexistent/token cannot be read"),
            std::string::npos)
      << error.message;
}

TEST(ConnectionTest, ClientCertificateWithoutKeyOrCa_Refused) {
  CliError error;
  ConnectionOptions no_key;
  no_key.server = "localhost:7070";
  no_key.tls_ca = "/etc/hostname";
  no_key.tls_cert = "/etc/hostname";
  EXPECT_EQ(Connection::Open(no_key, &error), nullptr);
  EXPECT_NE(error.message.find("--tls-cert and --tls-key go together"), std::string::npos)
      << error.message;
  ConnectionOptions no_ca = no_key;
  no_ca.tls_ca.clear();
  no_ca.tls_key = "/etc/hostname";
  EXPECT_EQ(Connection::Open(no_ca, &error), nullptr);
  EXPECT_NE(error.message.find("--tls-cert needs --tls-ca"), std::string::npos) << error.message;
}

}  // namespace
}  // namespace optrace::cli
