// Who may call optraced over TCP (--listen): a real daemon, real producers
// of two uids (root and 65534), real gRPC over real loopback TCP. Nothing
// is served to a call the daemon cannot identify; a bearer token or a TLS
// client certificate gives the user it names that user's rights, as on the
// socket; insecure_tcp_admin (the old behaviour) makes every caller an
// admin, and GetStatus says so.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>

#include "daemon_process.h"
#include "free_port.h"
#include "other_uid_stage.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_certificates.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using grpc::StatusCode;
using testing::DaemonProcess;
using testing::Subprocess;
using testing::WaitUntil;

constexpr uint32_t kNobody = 65534;
constexpr char kRootToken[] = "root-admin-token-8d1f0c2e9a7b4635";
constexpr char kNobodyToken[] = "nobody-user-token-5b2e7c9d0a1f4836";

// Writes `content` to `path` with `mode`.
void WriteFile(const std::string& path, const std::string& content, mode_t mode) {
  std::ofstream(path) << content;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

// What one unary call answered.
struct Answer {
  grpc::Status status;
  std::string response;  // the response message's bytes ("" when refused)
};

// A client of the daemon's TCP listener: every call carries `metadata`.
class TcpClient {
 public:
  TcpClient(
      const std::string& address,
      std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials(),
      std::vector<std::pair<std::string, std::string>> metadata = {})
      : channel_(grpc::CreateChannel(address, std::move(credentials))),
        stub_(v1::OpTrace::NewStub(channel_)),
        metadata_(std::move(metadata)) {}

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + 20s);
    for (const auto& [key, value] : metadata_) context->AddMetadata(key, value);
    return context;
  }

  // Calls unary method `call` with `request`.
  template <typename Request, typename Response>
  Answer Call(grpc::Status (v1::OpTrace::Stub::*call)(grpc::ClientContext*, const Request&,
                                                      Response*),
              const Request& request) {
    Response response;
    const grpc::Status status = (stub_.get()->*call)(Context().get(), request, &response);
    return {status, response.SerializeAsString()};
  }

  // Every span QueryOps streams for `session`, and how the stream ended.
  grpc::Status QueryOps(uint64_t session, size_t* spans) {
    v1::QueryOpsRequest request;
    request.set_session_id(session);
    const auto context = Context();
    auto reader = stub_->QueryOps(context.get(), request);
    v1::QueryOpsResponse page;
    *spans = 0;
    while (reader->Read(&page)) *spans += static_cast<size_t>(page.spans_size());
    return reader->Finish();
  }

  // The first item of a Tail, and how the stream ended.
  grpc::Status TailFirst(bool* got_item) {
    v1::TailRequest request;
    request.set_level(v1::LEVEL_TRACE);
    const auto context = Context();
    context->set_deadline(std::chrono::system_clock::now() + 2s);
    auto reader = stub_->Tail(context.get(), request);
    v1::TailResponse item;
    *got_item = reader->Read(&item);
    if (*got_item) context->TryCancel();
    return reader->Finish();
  }

  // A call of server reflection's method (a stream, called with one empty
  // message): what the gate answers before any method runs.
  grpc::Status Reflection() {
    grpc::GenericStub generic(channel_);
    const auto context = Context();
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    generic.UnaryCall(context.get(),
                      "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", {},
                      &request, &response, [&done](grpc::Status s) { done.set_value(s); });
    return done.get_future().get();
  }

  v1::OpTrace::Stub& stub() { return *stub_; }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

std::vector<std::pair<std::string, std::string>> Bearer(const std::string& token) {
  return {{"authorization", "Bearer " + token}};
}

// The uids of the sessions `client` lists (all of them, ended ones too).
std::set<uint32_t> ListedUids(TcpClient& client, grpc::Status* status) {
  v1::ListSessionsRequest request;
  request.set_all(true);
  v1::ListSessionsResponse response;
  *status = client.stub().ListSessions(client.Context().get(), request, &response);
  std::set<uint32_t> uids;
  for (const v1::Session& s : response.sessions()) uids.insert(s.uid());
  return uids;
}

// A daemon with sessions of two uids: root's (this test's own producer) and
// uid 65534's (a producer started through setpriv). Needs root.
class TcpAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: producers of two uids";
    port_ = testing::FreeLoopbackPort();
    ASSERT_GT(port_, 0);
    tokens_ = folder_.path() + "/tokens";
    ASSERT_EQ(::mkdir(tokens_.c_str(), 0700), 0);
    WriteFile(tokens_ + "/root", std::string(kRootToken) + "\n", 0600);
    WriteFile(tokens_ + "/nobody", std::string(kNobodyToken) + "\n", 0600);
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // Starts the daemon with `args` after --listen, and records one session
  // of each uid.
  void StartWithSessions(std::vector<std::string> args) {
    args.insert(args.begin(), {"--listen", address()});
    daemon_ = std::make_unique<DaemonProcess>(folder_.path(), args);
    ASSERT_TRUE(daemon_->Start()) << daemon_->log();
    auto own = testing::StartTestProducer({"--ops", "5"});
    testing::OtherUidStage stage;
    Subprocess other(stage.Command(testing::TestProducerPath(), {"--ops", "5"}),
                     {{"OPTRACE_LEVEL", "trace"}});
    ASSERT_TRUE(own->Wait(30s).has_value());
    const auto other_ended = other.Wait(30s);
    ASSERT_TRUE(other_ended.has_value());
    ASSERT_EQ(other_ended->code, 0) << other.stderr_text();
    // The socket's caller is root: an admin, who sees both once stored.
    auto socket =
        grpc::CreateChannel("unix:" + daemon_->socket_path(), grpc::InsecureChannelCredentials());
    auto stub = v1::OpTrace::NewStub(socket);
    ASSERT_TRUE(WaitUntil(
        [&] {
          grpc::ClientContext context;
          v1::ListSessionsRequest request;
          request.set_all(true);
          v1::ListSessionsResponse response;
          if (!stub->ListSessions(&context, request, &response).ok()) return false;
          for (const v1::Session& s : response.sessions()) {
            if (s.state() == v1::SESSION_STATE_RUNNING || s.spans() == 0) return false;
            (s.uid() == 0 ? root_session_ : nobody_session_) = s.id();
            if (s.uid() == kNobody) nobody_spans_ = s.spans();
          }
          return root_session_ != 0 && nobody_session_ != 0;
        },
        30s))
        << daemon_->log();
  }

  testing::TempFolder folder_;
  std::string tokens_;
  int port_ = 0;
  std::unique_ptr<DaemonProcess> daemon_;
  uint64_t root_session_ = 0;
  uint64_t nobody_session_ = 0;
  uint64_t nobody_spans_ = 0;  // spans of the uid-65534 session
};

TEST_F(TcpAuthTest, NoCredentials_EveryCallUnauthenticated_NothingServed) {
  StartWithSessions({"--listen-token-dir", tokens_});
  TcpClient anonymous(address());
  v1::GetSessionRequest get;
  get.set_session_id(root_session_);
  v1::ListSessionsRequest list;
  list.set_all(true);
  v1::SetLevelRequest set;
  set.set_level(v1::LEVEL_TRACE);
  v1::GetStatsRequest stats;
  stats.set_session_id(nobody_session_);
  v1::KeepRangeRequest keep;
  keep.set_session_id(root_session_);
  keep.set_last_ns(1'000'000);
  const std::vector<std::pair<std::string, Answer>> answers = {
      {"ListSessions", anonymous.Call(&v1::OpTrace::Stub::ListSessions, list)},
      {"GetSession", anonymous.Call(&v1::OpTrace::Stub::GetSession, get)},
      {"GetStatus", anonymous.Call(&v1::OpTrace::Stub::GetStatus, v1::GetStatusRequest())},
      {"GetLevel", anonymous.Call(&v1::OpTrace::Stub::GetLevel, v1::GetLevelRequest())},
      {"SetLevel", anonymous.Call(&v1::OpTrace::Stub::SetLevel, set)},
      {"GetStats", anonymous.Call(&v1::OpTrace::Stub::GetStats, stats)},
      {"KeepRange", anonymous.Call(&v1::OpTrace::Stub::KeepRange, keep)},
  };
  for (const auto& [method, answer] : answers) {
    EXPECT_EQ(answer.status.error_code(), StatusCode::UNAUTHENTICATED)
        << method << ": " << answer.status.error_message();
    EXPECT_NE(answer.status.error_message().find("--token-file"), std::string::npos)
        << method << ": " << answer.status.error_message();
    EXPECT_TRUE(answer.response.empty()) << method;
  }
  size_t spans = 1;
  const grpc::Status query = anonymous.QueryOps(root_session_, &spans);
  EXPECT_EQ(query.error_code(), StatusCode::UNAUTHENTICATED) << query.error_message();
  EXPECT_EQ(spans, 0u);
  bool got_item = true;
  const grpc::Status tail = anonymous.TailFirst(&got_item);
  EXPECT_EQ(tail.error_code(), StatusCode::UNAUTHENTICATED) << tail.error_message();
  EXPECT_FALSE(got_item);
  const grpc::Status reflection = anonymous.Reflection();
  EXPECT_EQ(reflection.error_code(), StatusCode::UNAUTHENTICATED) << reflection.error_message();
  // The SetLevel refused above changed nothing.
  TcpClient admin(address(), grpc::InsecureChannelCredentials(), Bearer(kRootToken));
  v1::GetLevelResponse levels;
  ASSERT_TRUE(admin.stub().GetLevel(admin.Context().get(), {}, &levels).ok());
  EXPECT_EQ(levels.default_level(), v1::LEVEL_OFF);
}

TEST_F(TcpAuthTest, UserToken_SeesOnlyItsOwnUidNotAdmin) {
  StartWithSessions({"--listen-token-dir", tokens_});
  TcpClient nobody(address(), grpc::InsecureChannelCredentials(), Bearer(kNobodyToken));
  grpc::Status listed;
  EXPECT_EQ(ListedUids(nobody, &listed), std::set<uint32_t>{kNobody});
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  v1::GetSessionRequest other;
  other.set_session_id(root_session_);
  const Answer refused = nobody.Call(&v1::OpTrace::Stub::GetSession, other);
  EXPECT_EQ(refused.status.error_code(), StatusCode::PERMISSION_DENIED)
      << refused.status.error_message();
  size_t spans = 1;
  EXPECT_EQ(nobody.QueryOps(root_session_, &spans).error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(spans, 0u);
  EXPECT_TRUE(nobody.QueryOps(nobody_session_, &spans).ok());
  EXPECT_EQ(spans, nobody_spans_);
  v1::SetLevelRequest global;
  global.set_level(v1::LEVEL_TRACE);
  EXPECT_EQ(nobody.Call(&v1::OpTrace::Stub::SetLevel, global).status.error_code(),
            StatusCode::PERMISSION_DENIED);
  v1::GetStatsRequest fleet;
  fleet.set_fleet(true);
  EXPECT_EQ(nobody.Call(&v1::OpTrace::Stub::GetStats, fleet).status.error_code(),
            StatusCode::PERMISSION_DENIED);
}

TEST_F(TcpAuthTest, AdminToken_SeesEveryUid) {
  StartWithSessions({"--listen-token-dir", tokens_});
  TcpClient root(address(), grpc::InsecureChannelCredentials(), Bearer(kRootToken));
  grpc::Status listed;
  EXPECT_EQ(ListedUids(root, &listed), (std::set<uint32_t>{0, kNobody}));
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  size_t spans = 0;
  EXPECT_TRUE(root.QueryOps(nobody_session_, &spans).ok());
  EXPECT_EQ(spans, nobody_spans_);
  // Allowed to ask: what stops a fleet query is the daemon's lack of
  // ClickHouse, not the caller's rights.
  v1::GetStatsRequest fleet;
  fleet.set_fleet(true);
  EXPECT_EQ(root.Call(&v1::OpTrace::Stub::GetStats, fleet).status.error_code(),
            StatusCode::FAILED_PRECONDITION);
  v1::GetStatusResponse status;
  ASSERT_TRUE(root.stub().GetStatus(root.Context().get(), {}, &status).ok());
  ASSERT_EQ(status.listeners_size(), 1);
  EXPECT_EQ(status.listeners(0).kind(), v1::LISTENER_KIND_GRPC);
  EXPECT_EQ(status.listeners(0).address(), address());
  EXPECT_EQ(status.listeners(0).token_users(), 2u);
  EXPECT_FALSE(status.listeners(0).unauthenticated());
}

TEST_F(TcpAuthTest, Malicious_WrongOrDoubledTokens_Unauthenticated) {
  StartWithSessions({"--listen-token-dir", tokens_});
  const std::string guessed = std::string(kRootToken).substr(0, sizeof kRootToken - 2) + "0";
  const std::vector<std::vector<std::pair<std::string, std::string>>> attempts = {
      Bearer(guessed),
      Bearer(std::string(kRootToken) + "x"),
      {{"authorization", std::string("Basic ") + kRootToken}},
      {{"authorization", "Bearer " + guessed},
       {"authorization", "Bearer " + std::string(kRootToken)}},
  };
  for (const auto& metadata : attempts) {
    TcpClient client(address(), grpc::InsecureChannelCredentials(), metadata);
    grpc::Status listed;
    EXPECT_TRUE(ListedUids(client, &listed).empty());
    EXPECT_EQ(listed.error_code(), StatusCode::UNAUTHENTICATED) << listed.error_message();
    EXPECT_EQ(listed.error_message().find(guessed), std::string::npos) << listed.error_message();
  }
}

TEST_F(TcpAuthTest, InsecureTcpAdmin_EveryCallerAdmin_StatusWarns) {
  StartWithSessions({"--insecure-tcp-admin"});
  TcpClient anonymous(address());
  grpc::Status listed;
  EXPECT_EQ(ListedUids(anonymous, &listed), (std::set<uint32_t>{0, kNobody}));
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  v1::GetStatusResponse status;
  ASSERT_TRUE(anonymous.stub().GetStatus(anonymous.Context().get(), {}, &status).ok());
  ASSERT_EQ(status.listeners_size(), 1);
  EXPECT_TRUE(status.listeners(0).unauthenticated());
  EXPECT_NE(status.listeners(0).warning().find("insecure_tcp_admin = true"), std::string::npos)
      << status.listeners(0).warning();
}

// TLS to the daemon, trusting `folder`/ca.pem, with the client certificate
// `name` of `folder` ("" for none).
std::shared_ptr<grpc::ChannelCredentials> Tls(const std::string& folder, const std::string& name) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = testing::ReadWholeFile(folder + "/ca.pem");
  if (!name.empty()) {
    ssl.pem_cert_chain = testing::ReadWholeFile(folder + "/" + name + ".pem");
    ssl.pem_private_key = testing::ReadWholeFile(folder + "/" + name + ".key");
  }
  return grpc::SslCredentials(ssl);
}

TEST_F(TcpAuthTest, ClientCertificate_CommonNameNamesTheUser) {
  const std::string certs = folder_.path() + "/certs";
  ASSERT_EQ(::mkdir(certs.c_str(), 0700), 0);
  const std::string made = testing::MakeTestCertificates(certs);
  ASSERT_TRUE(made.empty()) << made;
  StartWithSessions({"--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key",
                     "--tls-client-ca", certs + "/ca.pem"});
  grpc::Status listed;
  TcpClient nobody(address(), Tls(certs, "nobody"));
  EXPECT_EQ(ListedUids(nobody, &listed), std::set<uint32_t>{kNobody});
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  TcpClient root(address(), Tls(certs, "root"));
  EXPECT_EQ(ListedUids(root, &listed), (std::set<uint32_t>{0, kNobody}));
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  v1::GetStatusResponse status;
  ASSERT_TRUE(root.stub().GetStatus(root.Context().get(), {}, &status).ok());
  ASSERT_EQ(status.listeners_size(), 1);
  EXPECT_TRUE(status.listeners(0).tls());
  EXPECT_TRUE(status.listeners(0).client_certificates());
  EXPECT_EQ(status.listeners(0).token_users(), 0u);

  // TLS without a certificate: refused, saying what is missing.
  TcpClient anonymous(address(), Tls(certs, ""));
  EXPECT_TRUE(ListedUids(anonymous, &listed).empty());
  EXPECT_EQ(listed.error_code(), StatusCode::UNAUTHENTICATED) << listed.error_message();
  EXPECT_NE(listed.error_message().find("client certificate signed by its tls_client_ca"),
            std::string::npos)
      << listed.error_message();
  EXPECT_EQ(anonymous.Reflection().error_code(), StatusCode::UNAUTHENTICATED);
  // A certificate of this CA naming no user of this machine.
  TcpClient nameless(address(), Tls(certs, "stranger-name"));
  EXPECT_TRUE(ListedUids(nameless, &listed).empty());
  EXPECT_EQ(listed.error_code(), StatusCode::UNAUTHENTICATED) << listed.error_message();
  EXPECT_NE(listed.error_message().find("no-such-user-optrace-test"), std::string::npos);
  // "root" signed by another CA: the handshake fails, nothing is served.
  TcpClient forged(address(), Tls(certs, "stranger"));
  EXPECT_TRUE(ListedUids(forged, &listed).empty());
  EXPECT_FALSE(listed.ok());
  // A token of this daemon's is no use when it takes none.
  TcpClient token(address(), Tls(certs, ""), Bearer(kRootToken));
  EXPECT_TRUE(ListedUids(token, &listed).empty());
  EXPECT_EQ(listed.error_code(), StatusCode::UNAUTHENTICATED) << listed.error_message();
}

// Starts optraced with `args` and returns its exit code and log, for
// daemons that must refuse to start.
std::pair<int, std::string> RunToExit(const std::string& folder, std::vector<std::string> args) {
  std::vector<std::string> argv = {OPTRACED_PATH, "--db", folder + "/optrace.db", "--socket",
                                   folder + "/run/optraced.sock"};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess daemon(argv);
  const auto status = daemon.Wait(30s);
  return {status && status->exited ? status->code : -1, daemon.stderr_text()};
}

TEST(TcpAuthStartTest, Listen_WithoutWayToIdentifyCallers_RefusesToStart) {
  testing::TempFolder folder;
  const auto [code, log] = RunToExit(folder.path(), {"--listen", "127.0.0.1:1"});
  EXPECT_EQ(code, 2) << log;
  for (const char* named :
       {"listen '127.0.0.1:1'", "listen_token_dir", "tls_client_ca", "insecure_tcp_admin = true"}) {
    EXPECT_NE(log.find(named), std::string::npos) << log;
  }
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/run")) << "nothing made before refusing";
}

TEST(TcpAuthStartTest, Malicious_TokenFileReadableByOthers_RefusesToStartNamingFileAndMode) {
  testing::TempFolder folder;
  const std::string tokens = folder.path() + "/tokens";
  ASSERT_EQ(::mkdir(tokens.c_str(), 0700), 0);
  WriteFile(tokens + "/root", std::string(kRootToken) + "\n", 0644);
  const auto [code, log] =
      RunToExit(folder.path(), {"--listen", "127.0.0.1:1", "--listen-token-dir", tokens});
  EXPECT_EQ(code, 2) << log;
  EXPECT_NE(log.find(tokens + "/root is owned by uid " + std::to_string(::geteuid())),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("with mode 0644"), std::string::npos) << log;
  EXPECT_EQ(log.find(kRootToken), std::string::npos) << log;
}

}  // namespace
}  // namespace optrace
