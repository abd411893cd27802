// `optrace --server` against a real daemon's TCP listener: the caller says
// who it is with a bearer token (--token-file, OPTRACE_TOKEN_FILE); without
// one it is told what is missing; `optrace status` lists each listener and
// warns about one that serves callers it cannot identify.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "cli_harness.h"
#include "free_port.h"
#include "test_certificates.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::DaemonProcess;
using optrace::testing::TempFolder;

constexpr char kToken[] = "cli-test-token-6f1e2d3c4b5a6978";

// A daemon serving TCP on loopback to the token of this test's own uid
// (`extra_args` replace that with something else), with one finished
// session of its own.
class ServerTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> extra_args = {}) {
    const std::string tokens = folder_.path() + "/tokens";
    ASSERT_EQ(::mkdir(tokens.c_str(), 0700), 0);
    token_file_ = tokens + "/" + std::to_string(::geteuid());
    std::ofstream(token_file_) << kToken << "\n";
    ASSERT_EQ(::chmod(token_file_.c_str(), 0600), 0);
    address_ = "127.0.0.1:" + std::to_string(optrace::testing::FreeLoopbackPort());
    std::vector<std::string> args = {"--listen", address_};
    if (extra_args.empty()) extra_args = {"--listen-token-dir", tokens};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    daemon_ = std::make_unique<DaemonProcess>(folder_.path(), args);
    ASSERT_TRUE(daemon_->Start()) << daemon_->log();
  }
  // `optrace --server ADDRESS args...`, with OPTRACE_TOKEN_FILE unset unless
  // `env` sets it.
  CliRun Server(std::vector<std::string> args, Env env = {}) {
    args.insert(args.begin(), {"--server", address_});
    env.emplace("OPTRACE_TOKEN_FILE", "");
    return RunCli(args, env);
  }

  TempFolder folder_;
  std::string address_;
  std::string token_file_;
  std::unique_ptr<DaemonProcess> daemon_;
};

TEST_F(ServerTest, TokenFile_IdentifiesTheCaller) {
  Start();
  auto producer = StartTestProducer({"--ops", "3"});
  ASSERT_TRUE(producer->Wait(std::chrono::seconds(30)).has_value());
  const auto pid = static_cast<uint32_t>(producer->pid());
  bool listed = false;
  ASSERT_TRUE(optrace::testing::WaitUntil(
      [&] {
        const CliRun run = Server({"--token-file", token_file_, "sessions", "--all", "--json"});
        if (run.exit_code != 0) return false;
        for (const auto& s : JsonMember(run.out, "sessions")) listed |= s["pid"] == pid;
        return listed;
      },
      std::chrono::seconds(20)))
      << daemon_->log();
  const CliRun from_env =
      Server({"sessions", "--all", "--json"}, {{"OPTRACE_TOKEN_FILE", token_file_}});
  EXPECT_EQ(from_env.exit_code, 0) << from_env.err;
  const CliRun status = Server({"--token-file", token_file_, "status"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("listeners  grpc " + address_ +
                            ", plaintext: callers identified by bearer tokens of 1 user\n"),
            std::string::npos)
      << status.out;
}

TEST_F(ServerTest, NoToken_RefusedSayingWhatIsMissing) {
  Start();
  const CliRun run = Server({"sessions"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("does not know who you are"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--token-file"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST_F(ServerTest, Malicious_WrongToken_Refused) {
  Start();
  const std::string wrong = folder_.path() + "/wrong";
  std::ofstream(wrong) << "guessed-token-0123456789abcdef\n";
  ::chmod(wrong.c_str(), 0600);
  const CliRun run = Server({"--token-file", wrong, "status"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("no user's token"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("guessed-token"), std::string::npos) << run.err;
}

TEST_F(ServerTest, Malicious_TokenFileReadableByOthers_RefusedNamingFileAndMode) {
  Start();
  const std::string leaky = folder_.path() + "/leaky";
  std::ofstream(leaky) << kToken << "\n";
  ::chmod(leaky.c_str(), 0644);
  const CliRun run = Server({"--token-file", leaky, "status"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--token-file " + leaky + " is owned by uid"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("with mode 0644"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find(kToken), std::string::npos) << run.err;
}

TEST_F(ServerTest, InsecureTcpAdmin_StatusWarnsInTextAndJson) {
  Start({"--insecure-tcp-admin"});
  const CliRun text = Server({"status"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("listeners  grpc " + address_ +
                          ", plaintext: warning: insecure_tcp_admin = true: every caller of " +
                          address_ + " is an admin"),
            std::string::npos)
      << text.out;
  const CliRun json = Server({"status", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json listeners = JsonMember(json.out, "listeners");
  ASSERT_EQ(listeners.size(), 1u) << json.out;
  EXPECT_EQ(listeners[0]["kind"], "grpc");
  EXPECT_EQ(listeners[0]["address"], address_);
  EXPECT_EQ(listeners[0]["unauthenticated"], true);
  EXPECT_NE(listeners[0]["warning"].get<std::string>().find("insecure_tcp_admin"),
            std::string::npos);
}

TEST_F(ServerTest, ClientCertificate_IdentifiesTheCaller) {
  const std::string certs = folder_.path() + "/certs";
  ASSERT_EQ(::mkdir(certs.c_str(), 0700), 0);
  const std::string made = optrace::testing::MakeTestCertificates(certs);
  ASSERT_TRUE(made.empty()) << made;
  Start({"--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key", "--tls-client-ca",
         certs + "/ca.pem"});
  const CliRun status = Server({"--tls-ca", certs + "/ca.pem", "--tls-cert", certs + "/root.pem",
                                "--tls-key", certs + "/root.key", "status"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("listeners  grpc " + address_ +
                            ", TLS: callers identified by client certificates\n"),
            std::string::npos)
      << status.out;
  const CliRun anonymous = Server({"--tls-ca", certs + "/ca.pem", "sessions"});
  EXPECT_EQ(anonymous.exit_code, 1);
  EXPECT_NE(anonymous.err.find("a TLS client certificate signed by its tls_client_ca"),
            std::string::npos)
      << anonymous.err;
}

}  // namespace
}  // namespace optrace::cli::testing
