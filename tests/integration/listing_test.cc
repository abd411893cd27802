// Source listings end to end (issue 28): real producer processes read the
// lines around their op sites themselves, a real optraced stores them with
// the session, and GetSource shows them over the real socket: after the
// file changed on disk, for a listing the runtime registered, capped, kept
// while the window trims the session's spans, and never for a file the
// producer could not read (a producer of another uid naming /etc/shadow
// beside a root daemon).
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "optrace/optrace.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::DaemonProcess;
using testing::StartTestProducer;
using testing::StoreView;
using testing::WaitUntil;

// "line N of NAME" for N in [first, last].
std::vector<std::string> Lines(const std::string& name, int first, int last) {
  std::vector<std::string> lines;
  for (int n = first; n <= last; ++n) lines.push_back("line " + std::to_string(n) + " of " + name);
  return lines;
}

// Writes lines 1..`count` of Lines(name) to `folder`/`name`.
std::string WriteSource(const std::string& folder, const std::string& name, int count) {
  const std::string path = folder + "/" + name;
  std::ofstream out(path);
  for (const std::string& line : Lines(name, 1, count)) out << line << "\n";
  return path;
}

class ListingTest : public ::testing::Test {
 protected:
  // Starts the daemon with `args`; the test fails if it does not come up.
  void StartDaemon(std::vector<std::string> args = {}) {
    daemon_ = std::make_unique<DaemonProcess>(folder_.path(), std::move(args));
    ASSERT_TRUE(daemon_->Start()) << daemon_->log();
    stub_ = v1::OpTrace::NewStub(
        grpc::CreateChannel("unix:" + daemon_->socket_path(), grpc::InsecureChannelCredentials()));
    store_ = std::make_unique<StoreView>(daemon_->db_path());
  }

  // Runs the test producer with `args` to its end; returns the op ids it
  // printed for its --at ops and sets `session_` to its stored session.
  std::vector<uint64_t> Produce(const std::vector<std::string>& args) {
    auto producer = StartTestProducer(args);
    const auto status = producer->Wait(30s);
    EXPECT_TRUE(status && status->exited && status->code == 0) << producer->stderr_text();
    const auto ended = store_->WaitForEnd(static_cast<uint32_t>(producer->pid()), 20s);
    EXPECT_TRUE(ended) << daemon_->log();
    if (ended) session_ = ended->id;
    std::vector<uint64_t> ops;
    std::istringstream out(producer->stdout_text());
    for (std::string line; std::getline(out, line);) {
      if (line.rfind("at op=", 0) == 0) ops.push_back(std::stoull(line.substr(6)));
    }
    return ops;
  }

  grpc::Status Source(uint64_t op_id, v1::GetSourceResponse* response, uint32_t context = 0) {
    v1::GetSourceRequest request;
    request.set_session_id(session_);
    request.set_op_id(op_id);
    request.set_context(context);
    grpc::ClientContext rpc;
    return stub_->GetSource(&rpc, request, response);
  }

  v1::Session GetSession() {
    v1::GetSessionRequest request;
    request.set_session_id(session_);
    v1::GetSessionResponse response;
    grpc::ClientContext rpc;
    EXPECT_TRUE(stub_->GetSession(&rpc, request, &response).ok());
    return response.session();
  }

  testing::TempFolder folder_;
  testing::TempFolder sources_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
  std::unique_ptr<StoreView> store_;
  uint64_t session_ = 0;
};

TEST_F(ListingTest, FileChangedAfterTheRun_ListingShownAsItRan) {
  StartDaemon();
  const std::string path = WriteSource(sources_.path(), "model.cc", 120);
  const auto ops = Produce({"--ops", "10", "--at", path, "50", "matmul"});
  ASSERT_EQ(ops.size(), 1u);
  std::ofstream(path) << "rewritten after the run\n";

  v1::GetSourceResponse source;
  const grpc::Status status = Source(ops[0], &source);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(source.source_location(), path + ":50");
  EXPECT_EQ(source.file(), path);
  EXPECT_EQ(source.line(), 50u);
  EXPECT_EQ(source.first_line(), 40u);
  EXPECT_EQ(std::vector<std::string>(source.lines().begin(), source.lines().end()),
            Lines("model.cc", 40, 60));
  EXPECT_FALSE(source.registered());

  v1::GetSourceResponse narrow;
  ASSERT_TRUE(Source(ops[0], &narrow, 2).ok());
  EXPECT_EQ(narrow.first_line(), 48u);
  EXPECT_EQ(std::vector<std::string>(narrow.lines().begin(), narrow.lines().end()),
            Lines("model.cc", 48, 52));
  // model.cc's, and the test producer's own op sites'.
  EXPECT_GE(GetSession().listings().stored(), 2u);
}

TEST_F(ListingTest, RegisteredListing_AnOpPointsIntoIt) {
  StartDaemon();
  const std::string ir = WriteSource(sources_.path(), "mlp.mlir", 6);
  const auto ops = Produce({"--ops", "1", "--register-listing", "mlp.after-fusion.mlir", ir, "--at",
                            "mlp.after-fusion.mlir", "3", "fused_matmul_gelu"});
  ASSERT_EQ(ops.size(), 1u);
  v1::GetSourceResponse source;
  const grpc::Status status = Source(ops[0], &source);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(source.registered());
  EXPECT_EQ(source.file(), "mlp.after-fusion.mlir");
  EXPECT_EQ(source.line(), 3u);
  EXPECT_EQ(source.first_line(), 1u);
  EXPECT_EQ(std::vector<std::string>(source.lines().begin(), source.lines().end()),
            Lines("mlp.mlir", 1, 6));
}

TEST_F(ListingTest, SessionCap_ListingsOfFilesBeyondItCountedCapped) {
  // Three files: the test producer's own source (its first op's site comes
  // first), a.cc and b.cc; c.cc's listing is one file too many.
  const std::string config = sources_.path() + "/optraced.toml";
  std::ofstream(config) << "listing_max_files = 3\n";
  StartDaemon({"--config", config});
  const std::string a = WriteSource(sources_.path(), "a.cc", 100);
  const std::string b = WriteSource(sources_.path(), "b.cc", 100);
  const std::string c = WriteSource(sources_.path(), "c.cc", 100);
  const auto ops = Produce(
      {"--ops", "1", "--at", a, "50", "op_a", "--at", b, "50", "op_b", "--at", c, "50", "op_c"});
  ASSERT_EQ(ops.size(), 3u);
  v1::GetSourceResponse source;
  EXPECT_TRUE(Source(ops[0], &source).ok());
  EXPECT_TRUE(Source(ops[1], &source).ok());
  EXPECT_EQ(Source(ops[2], &source).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GetSession().listings().capped(), 1u);
}

TEST_F(ListingTest, SessionCap_AListingBeyondTheBytesCountedCapped) {
  StartDaemon({"--listing-max-bytes", "4096"});
  const std::string big = WriteSource(sources_.path(), "big.mlir", 300);  // about 5 KB
  const auto ops = Produce(
      {"--ops", "1", "--register-listing", "big.mlir", big, "--at", "big.mlir", "3", "fused"});
  ASSERT_EQ(ops.size(), 1u);
  v1::GetSourceResponse source;
  EXPECT_EQ(Source(ops[0], &source).error_code(), grpc::StatusCode::NOT_FOUND);
  const v1::Session session = GetSession();
  EXPECT_EQ(session.listings().capped(), 1u);
  EXPECT_GE(session.listings().stored(), 1u) << "the test producer's own, of about 1 KB";
}

TEST_F(ListingTest, WindowTrimsTheSpans_TheListingsStay) {
  StartDaemon({"--keep-last", "100ms"});
  const std::string path = WriteSource(sources_.path(), "loop.py", 100);
  const auto ops = Produce({"--ops", "200000", "--rate", "400000", "--at", path, "70", "last"});
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_TRUE(WaitUntil([&] { return GetSession().spans_trimmed() > 0; }, 20s)) << daemon_->log();
  v1::GetSourceResponse source;
  const grpc::Status status = Source(ops[0], &source);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(source.first_line(), 60u);
}

TEST_F(ListingTest, OtherUidNamesShadow_RootDaemonStoresNoListingCountsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: a root daemon and a producer of another uid";
  // A producer of uid 65534: a fork of this test (which has not traced),
  // so that nothing must be staged where that uid can reach it. Forked
  // before this test makes any gRPC channel, whose threads a child would
  // not have (and whose memory a leak check in the child would report);
  // it traces once the daemon runs (a byte on `go`).
  int go[2];
  int pipe_fds[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(go[1]);
    ::close(pipe_fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(10);
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) _exit(12);  // the test gave up
    optrace_set_level(OPTRACE_LEVEL_TRACE);
    optrace_op_desc desc{};
    optrace_intern("peek", 4, &desc.name_id);
    optrace_intern_location("/etc/shadow", 1, &desc.srcloc_id);
    desc.target = OPTRACE_TARGET_CPU;
    const uint64_t id = optrace_op_begin(&desc, 0);
    optrace_op_end(&desc, id, 0);
    const std::string text = std::to_string(id) + "\n";
    if (::write(pipe_fds[1], text.data(), text.size()) < 0) _exit(11);
    std::exit(0);  // the exit handlers: the listing thread's last pass, the clean exit
  }
  ::close(go[0]);
  StartDaemon();
  const bool started = !HasFatalFailure() && ::write(go[1], "g", 1) == 1;
  ::close(go[1]);
  ASSERT_TRUE(started);
  ::close(pipe_fds[1]);
  char buffer[32] = {};
  const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer - 1);
  ::close(pipe_fds[0]);
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) << wait_status;
  ASSERT_GT(n, 0);
  const uint64_t op = std::stoull(buffer);
  ASSERT_NE(op, 0u);
  const auto ended = store_->WaitForEnd(static_cast<uint32_t>(child), 20s);
  ASSERT_TRUE(ended) << daemon_->log();
  session_ = ended->id;
  EXPECT_EQ(ended->uid, 65534u);

  const v1::Session session = GetSession();
  EXPECT_GE(session.listings().refused(), 1u);
  v1::GetSourceResponse source;
  const grpc::Status status = Source(op, &source);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  EXPECT_TRUE(source.lines().empty());
}

}  // namespace
}  // namespace optrace
