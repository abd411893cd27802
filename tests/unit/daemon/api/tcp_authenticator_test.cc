// Who a TCP call is: the user its bearer token names, else the user its
// client certificate's common name names; UNAUTHENTICATED otherwise, with
// a message that says what the daemon accepts and never echoes a token.
// The gRPC side (metadata, auth context, the gate) runs in
// tests/integration/tcp_auth_test.cc.
#include "api/tcp_authenticator.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "temp_folder.h"

namespace optrace::daemon {
namespace {

constexpr char kNobodyToken[] = "nobody-token-0123456789abcdef";

class TcpAuthenticatorTest : public ::testing::Test {
 protected:
  TokenTable Tokens() {
    const std::string folder = temp_.path() + "/tokens";
    ::mkdir(folder.c_str(), 0700);
    std::ofstream(folder + "/nobody") << kNobodyToken;
    ::chmod((folder + "/nobody").c_str(), 0600);
    auto table = TokenTable::Load(folder, ::geteuid());
    EXPECT_TRUE(table.ok()) << table.status().message();
    return std::move(table).value();
  }
  testing::TempFolder temp_;
};

TEST_F(TcpAuthenticatorTest, BearerToken_NamesItsUser) {
  const TcpAuthenticator tcp(Tokens(), false);
  auto uid = tcp.Authenticate(std::string("Bearer ") + kNobodyToken, std::nullopt);
  ASSERT_TRUE(uid.ok()) << uid.status().message();
  EXPECT_EQ(uid.value(), 65534u);
  EXPECT_EQ(tcp.token_users(), 1u);
}

TEST_F(TcpAuthenticatorTest, Malicious_WrongTokenOrScheme_UnauthenticatedWithoutEcho) {
  const TcpAuthenticator tcp(Tokens(), false);
  for (const std::string& header :
       {std::string("Bearer guessed-token-0123456789"), std::string("Basic ") + kNobodyToken,
        std::string("Bearer"), std::string("")}) {
    auto uid = tcp.Authenticate(header, std::nullopt);
    ASSERT_FALSE(uid.ok()) << header;
    EXPECT_EQ(uid.status().code(), Status::Code::kUnauthenticated);
    EXPECT_EQ(uid.status().message().find("guessed"), std::string::npos);
    EXPECT_EQ(uid.status().message().find(kNobodyToken), std::string::npos);
  }
}

TEST_F(TcpAuthenticatorTest, NothingPresented_SaysWhatItAccepts) {
  const TcpAuthenticator tokens_only(Tokens(), false);
  auto refused = tokens_only.Authenticate(std::nullopt, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--token-file"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("certificate"), std::string::npos)
      << refused.status().message();
  const TcpAuthenticator both(Tokens(), true);
  auto either = both.Authenticate(std::nullopt, std::nullopt);
  ASSERT_FALSE(either.ok());
  EXPECT_NE(either.status().message().find("--token-file"), std::string::npos);
  EXPECT_NE(either.status().message().find("client certificate"), std::string::npos)
      << either.status().message();
}

TEST_F(TcpAuthenticatorTest, CertificateCommonName_NamesUserByNameOrUid) {
  const TcpAuthenticator tcp(std::nullopt, true);
  EXPECT_EQ(tcp.Authenticate(std::nullopt, "root").value(), 0u);
  EXPECT_EQ(tcp.Authenticate(std::nullopt, "nobody").value(), 65534u);
  EXPECT_EQ(tcp.Authenticate(std::nullopt, "4242").value(), 4242u);
  auto stranger = tcp.Authenticate(std::nullopt, "no-such-user-optrace-test");
  ASSERT_FALSE(stranger.ok());
  EXPECT_NE(stranger.status().message().find("'no-such-user-optrace-test' names no user"),
            std::string::npos)
      << stranger.status().message();
  EXPECT_FALSE(tcp.Authenticate(std::nullopt, "4294967295").ok());
  EXPECT_FALSE(tcp.Authenticate(std::nullopt, "99999999999").ok());
}

TEST_F(TcpAuthenticatorTest, Malicious_WrongTokenWithGoodCertificate_Refused) {
  const TcpAuthenticator tcp(Tokens(), true);
  EXPECT_FALSE(tcp.Authenticate("Bearer guessed-token-0123456789", "root").ok());
}

TEST_F(TcpAuthenticatorTest, TokenToDaemonWithoutTokens_RefusedSayingSo) {
  const TcpAuthenticator tcp(std::nullopt, true);
  auto refused = tcp.Authenticate(std::string("Bearer ") + kNobodyToken, "root");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("no listen_token_dir"), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace optrace::daemon
