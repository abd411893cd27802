#include "reliability_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "common/segment_name.h"
#include "model/span.h"

namespace optrace::testing {

using namespace std::chrono_literals;

bool SoakRun() {
  const char* soak = std::getenv("OPTRACE_SOAK");
  return soak != nullptr && std::string(soak) == "1";
}

int Sized(int ci, int soak) { return SoakRun() ? soak : ci; }

unsigned TestSeed() {
  const char* seed = std::getenv("OPTRACE_TEST_SEED");
  if (seed != nullptr && *seed != '\0') return static_cast<unsigned>(std::stoul(seed));
  return std::random_device()();
}

void ReportFigure(const std::string& figure) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  ::testing::Test::RecordProperty("figure", figure);
  std::printf("RELIABILITY %s.%s%s: %s\n", test->test_suite_name(), test->name(),
              SoakRun() ? " (soak)" : "", figure.c_str());
  std::fflush(stdout);
}

namespace {

std::unique_ptr<Subprocess> StartTraced(std::vector<std::string> argv,
                                        std::map<std::string, std::string> env) {
  env.emplace("OPTRACE_LEVEL", "trace");
  return std::make_unique<Subprocess>(std::move(argv), std::move(env));
}

}  // namespace

std::unique_ptr<Subprocess> StartTestProducer(const std::vector<std::string>& args,
                                              std::map<std::string, std::string> env) {
  std::vector<std::string> argv = {OPTRACE_TEST_PRODUCER};
  argv.insert(argv.end(), args.begin(), args.end());
  return StartTraced(std::move(argv), std::move(env));
}

std::unique_ptr<Subprocess> StartLoadProducer(int threads, int pairs_per_second, double seconds,
                                              std::map<std::string, std::string> env) {
  return StartTraced({OPTRACE_LOAD, "--threads", std::to_string(threads), "--rate",
                      std::to_string(pairs_per_second), "--seconds", std::to_string(seconds)},
                     std::move(env));
}

uint64_t DroppedEvents(const daemon::SessionRecord& s) {
  return s.dropped_ring_full + s.dropped_no_ring + s.dropped_shed + s.dropped_daemon_restart +
         s.dropped_invalid;
}

bool StoreView::Open() {
  if (reader_) return true;
  auto opened = daemon::SpanReader::Open(db_path_);
  if (!opened.ok()) return false;
  reader_ = std::move(opened).value();
  return true;
}

std::vector<daemon::SessionRecord> StoreView::Sessions() {
  if (!Open()) return {};
  auto sessions = reader_->ListSessions();
  return sessions.ok() ? std::move(sessions).value() : std::vector<daemon::SessionRecord>{};
}

std::optional<daemon::SessionRecord> StoreView::SessionByPid(uint32_t pid) {
  for (daemon::SessionRecord& r : Sessions()) {
    if (r.pid == pid) return std::move(r);
  }
  return std::nullopt;
}

std::optional<daemon::SessionRecord> StoreView::WaitForEnd(uint32_t pid,
                                                           std::chrono::milliseconds timeout) {
  std::optional<daemon::SessionRecord> record;
  WaitUntil(
      [&] {
        record = SessionByPid(pid);
        return record && record->state != daemon::SessionState::kRunning;
      },
      timeout);
  if (record && record->state == daemon::SessionState::kRunning) return std::nullopt;
  return record;
}

StoredEvents StoreView::Stored(daemon::SessionId session) {
  StoredEvents out;
  if (!Open()) {
    ADD_FAILURE() << "cannot open " << db_path_;
    return out;
  }
  const Status spans =
      reader_->ForEachSpan(session, INT64_MIN, INT64_MAX, [&](const daemon::Span& s) {
        ++out.spans;
        out.events += s.status == daemon::SpanStatus::kOk ? 2 : 1;
        out.incomplete_spans += s.status == daemon::SpanStatus::kIncomplete;
        return true;
      });
  EXPECT_TRUE(spans.ok()) << "spans of session " << session << ": " << spans.message();
  const Status instants = reader_->ForEachInstant(session, [&](const daemon::Instant&) {
    ++out.events;
    return true;
  });
  EXPECT_TRUE(instants.ok()) << "instants of session " << session << ": " << instants.message();
  return out;
}

EventBalance BalanceOf(const Subprocess& producer, const daemon::SessionRecord& session,
                       StoreView& store) {
  const std::map<std::string, uint64_t> done = DoneCounts(producer);
  EventBalance balance;
  if (done.count("launches") == 0 || done.count("completes") == 0) {
    ADD_FAILURE() << "pid " << producer.pid() << " printed no done line: " << producer.stdout_text()
                  << producer.stderr_text();
    return balance;
  }
  if (done.count("no_segment") != 0) {
    EXPECT_EQ(done.at("no_segment"), 0u) << "pid " << producer.pid() << " had no segment";
  }
  balance.written = done.at("launches") + done.at("completes");
  const StoredEvents stored = store.Stored(session.id);
  // The span count includes spans produced but shed (SessionRecord::spans).
  if (session.dropped_shed == 0) {
    EXPECT_EQ(session.spans, stored.spans)
        << "pid " << producer.pid() << ": the session's span count";
  }
  balance.stored = stored.events;
  balance.dropped = DroppedEvents(session);
  return balance;
}

bool SegmentExists(uint32_t pid) {
  const std::string prefix = std::string(std::getenv("OPTRACE_NAMESPACE")) + ".";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const auto parsed = SegmentName::Parse(name);
    if (parsed && parsed->pid == pid) return true;
  }
  return false;
}

pid_t DaemonPid(const DaemonProcess& daemon) {
  const std::filesystem::path run = std::filesystem::path(daemon.socket_path()).parent_path();
  std::ifstream lock(run / ("optraced-" + std::string(std::getenv("OPTRACE_NAMESPACE")) + ".lock"));
  pid_t pid = 0;
  lock >> pid;
  return pid;
}

uint64_t ResidentKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

std::shared_ptr<grpc::Channel> NewConnection(const std::string& socket_path) {
  static std::atomic<int> next_id{0};
  grpc::ChannelArguments args;
  args.SetInt("grpc.optrace_test_id", next_id.fetch_add(1));
  return grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args);
}

std::optional<v1::GetStatusResponse> DaemonStatus(v1::OpTrace::Stub& stub) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 2s);
  v1::GetStatusResponse status;
  if (!stub.GetStatus(&ctx, v1::GetStatusRequest(), &status).ok()) return std::nullopt;
  return status;
}

}  // namespace optrace::testing
