#include "reliability_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

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

std::unique_ptr<Subprocess> StartLoadProducer(int threads, int pairs_per_second, double seconds,
                                              std::map<std::string, std::string> env) {
  env.emplace("OPTRACE_LEVEL", "trace");
  return std::make_unique<Subprocess>(
      std::vector<std::string>{OPTRACE_LOAD, "--threads", std::to_string(threads), "--rate",
                               std::to_string(pairs_per_second), "--seconds",
                               std::to_string(seconds)},
      std::move(env));
}

StoredEvents CountStored(StoreView& store, daemon::SessionId session) {
  StoredEvents out;
  store.ForEachSpan(session, [&](const daemon::Span& s) {
    ++out.spans;
    out.events += s.status == daemon::SpanStatus::kOk ? 2 : 1;
    out.incomplete_spans += s.status == daemon::SpanStatus::kIncomplete;
  });
  store.ForEachInstant(session, [&](const daemon::Instant&) { ++out.events; });
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
  const StoredEvents stored = CountStored(store, session.id);
  // The span count includes spans produced but shed (SessionRecord::spans).
  if (session.dropped_shed == 0) {
    EXPECT_EQ(session.spans, stored.spans)
        << "pid " << producer.pid() << ": the session's span count";
  }
  balance.stored = stored.events;
  balance.dropped = DroppedEvents(session);
  return balance;
}

pid_t DaemonPid(const DaemonProcess& daemon) {
  const std::filesystem::path run = std::filesystem::path(daemon.socket_path()).parent_path();
  std::ifstream lock(run / ("optraced-" + std::string(std::getenv("OPTRACE_NAMESPACE")) + ".lock"));
  pid_t pid = 0;
  lock >> pid;
  return pid;
}

namespace {

// One "Name:   N kB" field of /proc/PID/status; 0 when absent or gone.
uint64_t StatusFieldKib(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  const std::string prefix = field + ":";
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoull(line.substr(prefix.size()));
  }
  return 0;
}

}  // namespace

uint64_t ResidentKib(pid_t pid) { return StatusFieldKib(pid, "VmRSS"); }

uint64_t PrivateResidentKib(pid_t pid) {
  const uint64_t resident = StatusFieldKib(pid, "VmRSS");
  const uint64_t shared = StatusFieldKib(pid, "RssShmem");
  return resident > shared ? resident - shared : 0;
}

void RssSampler::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RssSampler::Run() {
  while (!stop_.load()) {
    peak_kib_ = std::max(peak_kib_, ResidentKib(pid_));
    private_peak_kib_ = std::max(private_peak_kib_, PrivateResidentKib(pid_));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
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
