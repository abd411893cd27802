// The disk fills up under the daemon (issue 9): a file-size limit
// (RLIMIT_FSIZE, set on the running daemon with prlimit) makes SQLite's
// writes fail the way a full disk does. The daemon keeps draining and
// serving tails, reports the failure in GetStatus, writes again once the
// limit is lifted, counts what it had to shed, and leaves a database that
// passes PRAGMA integrity_check. CI fills and frees it once, the soak 5
// times.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "reliability_harness.h"
#include "temp_folder.h"

namespace optrace::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kPrlimit[] = "/usr/bin/prlimit";  // util-linux
constexpr char kSqlite3[] = "/usr/bin/sqlite3";  // the sqlite3 CLI

// True when process `pid` ignores signal `sig` (SigIgn of /proc/PID/status).
bool Ignores(pid_t pid, int sig) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigIgn:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  }
  return false;
}

// Sets the soft RLIMIT_FSIZE of `pid` ("unlimited" or a byte count).
void SetFileSizeLimit(pid_t pid, const std::string& limit) {
  Subprocess prlimit({kPrlimit, "--pid", std::to_string(pid), "--fsize=" + limit + ":"});
  const auto status = prlimit.Wait(10s);
  ASSERT_TRUE(status && status->exited && status->code == 0)
      << "prlimit --fsize=" << limit << ": " << prlimit.stderr_text();
}

uint64_t FileBytes(const std::string& path) {
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

uint64_t Counter(const v1::GetStatusResponse& status, const std::string& name) {
  const auto it = status.counters().find(name);
  return it == status.counters().end() ? 0 : it->second;
}

// Opens a Tail and counts the events it receives within `timeout`,
// stopping at `want`.
int TailEvents(v1::OpTrace::Stub& stub, int want, std::chrono::milliseconds timeout) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  auto stream = stub.Tail(&ctx, v1::TailRequest());
  v1::TailResponse item;
  int events = 0;
  while (events < want && stream->Read(&item)) events += item.has_event();
  ctx.TryCancel();
  return events;
}

// What one fill-and-free cycle measured.
struct CycleFigures {
  std::string error;                    // writer_last_error while failing
  uint64_t ingested_while_failing = 0;  // events ingested in 1 s of failing writes
  int tailed = 0;                       // events a tail opened then received
  EventBalance balance;                 // of the cycle's producer
  uint64_t shed = 0;                    // its dropped_shed
};

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {kPrlimit, kSqlite3}) {
      if (!std::filesystem::exists(tool)) GTEST_SKIP() << tool << " is not installed";
    }
    ASSERT_TRUE(daemon_.Start()) << daemon_.log();
    pid_ = DaemonPid(daemon_);
    ASSERT_GT(pid_, 0);
    ASSERT_TRUE(Ignores(pid_, SIGXFSZ))
        << "optraced must ignore SIGXFSZ (daemon/main.cc), or a file-size limit kills it";
    stub_ = v1::OpTrace::NewStub(NewConnection(daemon_.socket_path()));
  }

  // Under a producer of its own: lets writes succeed, fills the "disk" (a
  // file-size limit on the daemon), checks
  // what goes on while writes fail, frees it, checks that writing resumes,
  // and balances the producer's books once it ends.
  void FillAndFree(CycleFigures* out) {
    const auto before = DaemonStatus(*stub_);
    ASSERT_TRUE(before.has_value());
    const double seconds = 8;
    auto load = StartLoadProducer(2, 40000, seconds);
    ASSERT_TRUE(WaitUntil(
        [&] {
          const auto st = DaemonStatus(*stub_);
          return st && Counter(*st, "spans_committed") > Counter(*before, "spans_committed");
        },
        10s))
        << daemon_.log();
    // Linux refuses a write at an offset beyond RLIMIT_FSIZE even inside a
    // larger file, and the WAL is rewritten from its start after each
    // checkpoint: 256 KiB beyond the smaller file is soon crossed.
    const uint64_t limit =
        std::min(FileBytes(daemon_.db_path()), FileBytes(daemon_.db_path() + "-wal")) + (256 << 10);
    SetFileSizeLimit(pid_, std::to_string(limit));
    std::optional<v1::GetStatusResponse> failing;
    ASSERT_TRUE(WaitUntil(
        [&] {
          failing = DaemonStatus(*stub_);
          return failing && failing->writer_errors() > before->writer_errors() &&
                 !failing->writer_last_error().empty();
        },
        20s))
        << "writes never failed under a limit of " << limit << " bytes\n"
        << daemon_.log();
    out->error = failing->writer_last_error();
    // While writes fail: events still ingested, tails still served,
    // nothing committed.
    std::this_thread::sleep_for(1s);
    const auto during = DaemonStatus(*stub_);
    ASSERT_TRUE(during.has_value()) << "the daemon answers while its writes fail";
    out->ingested_while_failing = during->events_ingested() - failing->events_ingested();
    EXPECT_GT(out->ingested_while_failing, 0u) << "draining goes on";
    EXPECT_EQ(Counter(*during, "spans_committed"), Counter(*failing, "spans_committed"));
    out->tailed = TailEvents(*stub_, 100, 5s);
    EXPECT_EQ(out->tailed, 100) << "a tail opened while writes fail gets events";
    const auto after_tail = DaemonStatus(*stub_);
    ASSERT_TRUE(after_tail.has_value());
    EXPECT_FALSE(after_tail->writer_last_error().empty()) << "writes failed all along";
    ASSERT_FALSE(load->Wait(0ms).has_value())
        << "the load ended while writes failed; raise --seconds";
    // Space returns.
    SetFileSizeLimit(pid_, "unlimited");
    EXPECT_TRUE(WaitUntil(
        [&] {
          const auto resumed = DaemonStatus(*stub_);
          return resumed && resumed->writer_last_error().empty() &&
                 Counter(*resumed, "spans_committed") > Counter(*during, "spans_committed");
        },
        20s))
        << "writing did not resume\n"
        << daemon_.log();
    // What could not wait for the disk was shed and counted.
    ASSERT_TRUE(
        load->Wait(std::chrono::milliseconds(static_cast<int>(seconds * 1000)) + 20s).has_value());
    const auto session = store_.WaitForEnd(static_cast<uint32_t>(load->pid()), 20s);
    ASSERT_TRUE(session.has_value()) << daemon_.log();
    out->balance = BalanceOf(*load, *session, store_);
    out->shed = session->dropped_shed;
    EXPECT_EQ(out->balance.unaccounted(), 0)
        << "written " << out->balance.written << " stored " << out->balance.stored << " dropped "
        << out->balance.dropped;
  }

  TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};
  StoreView store_{daemon_.db_path()};
  pid_t pid_ = 0;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
};

TEST_F(DiskFullTest,
       WritesFailThenSpaceReturns_DrainAndTailsGoOnErrorReportedWritingResumesDbIntact) {
  const int cycles = Sized(1, 5);
  CycleFigures total;
  for (int i = 0; i < cycles && !HasFatalFailure(); ++i) {
    CycleFigures cycle;
    FillAndFree(&cycle);
    total.error = cycle.error;
    total.ingested_while_failing += cycle.ingested_while_failing;
    total.tailed += cycle.tailed;
    total.balance.written += cycle.balance.written;
    total.balance.stored += cycle.balance.stored;
    total.balance.dropped += cycle.balance.dropped;
    total.shed += cycle.shed;
  }
  const auto status = DaemonStatus(*stub_);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(daemon_.Stop(), 0) << daemon_.log();
  Subprocess check({kSqlite3, daemon_.db_path(), "PRAGMA integrity_check;"});
  ASSERT_TRUE(check.Wait(60s).has_value());
  EXPECT_EQ(check.stdout_text(), "ok\n") << check.stderr_text();
  ReportFigure(std::to_string(cycles) + " fill/free cycles, writer errors " +
               std::to_string(status->writer_errors()) + " ('" + total.error +
               "'); while failing: " + std::to_string(total.ingested_while_failing) +
               " events ingested (1 s a cycle), " + std::to_string(total.tailed) +
               " tailed; writing resumed each time; producers: written " +
               std::to_string(total.balance.written) + ", stored " +
               std::to_string(total.balance.stored) + ", shed " + std::to_string(total.shed) +
               ", unaccounted " + std::to_string(total.balance.unaccounted()) +
               "; integrity_check " + (check.stdout_text() == "ok\n" ? "ok" : "FAILED"));
}

}  // namespace
}  // namespace optrace::testing
