// What the fault-injection tests share: their sizes (CI or soak), how they
// report a figure, the producer processes they start, and how they read
// back what the daemon stored and account for every event written.
#ifndef OPTRACE_TESTS_RELIABILITY_RELIABILITY_HARNESS_H_
#define OPTRACE_TESTS_RELIABILITY_RELIABILITY_HARNESS_H_

#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon_process.h"
#include "model/session_record.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "producer_report.h"
#include "segment_reading.h"
#include "store_view.h"
#include "subprocess.h"
#include "test_producer.h"

namespace optrace::testing {

// True when the environment has OPTRACE_SOAK=1: the tests then run at the
// sizes of issue 9 instead of the ones that fit CI.
bool SoakRun();

// `ci` in a normal run, `soak` under OPTRACE_SOAK=1.
int Sized(int ci, int soak);

// The seed of a randomised test: OPTRACE_TEST_SEED when set (to replay a
// failure: every test names its seed in its figure and its failures), else
// a fresh random one.
unsigned TestSeed();

// Records the running test's figure twice: as the test property "figure"
// (in --gtest_output=xml) and as one stdout line
// "RELIABILITY <TestSuite.Test>: <figure>", from which docs/RELIABILITY.md
// is filled. REQUIRES: called from inside a test body.
void ReportFigure(const std::string& figure);

// Starts optrace-load: `threads` threads offering `pairs_per_second` op
// pairs in all (0: unpaced) for `seconds`; `env` is added to this
// process's environment, with OPTRACE_LEVEL=trace unless `env` sets it.
std::unique_ptr<Subprocess> StartLoadProducer(int threads, int pairs_per_second, double seconds,
                                              std::map<std::string, std::string> env = {});

// What the store holds for one session, counted in producer events: a span
// of status ok stands for 2 (its LAUNCH and COMPLETE), any other span for
// 1, an instant for 1.
struct StoredEvents {
  uint64_t events = 0;
  uint64_t spans = 0;
  uint64_t incomplete_spans = 0;  // status incomplete: ops left open
};

// Counts what `store` holds for `session`; a read error fails the running
// test and counts what was read before it.
StoredEvents CountStored(StoreView& store, daemon::SessionId session);

// One producer's books: what it says it wrote against what the daemon
// stored and counted as dropped for its session.
struct EventBalance {
  uint64_t written = 0;  // launches + completes from its done line
  uint64_t stored = 0;
  uint64_t dropped = 0;
  // Events neither stored nor counted: 0 when nothing was lost silently
  // (negative: more stored or counted than written, also a bug).
  int64_t unaccounted() const {
    return static_cast<int64_t>(written) - static_cast<int64_t>(stored) -
           static_cast<int64_t>(dropped);
  }
};

// Balances the ended `session` of the finished `producer` (its done line
// must be there). Fails the running test when the producer reported events
// dropped for want of a segment (those never reach any daemon), or when
// the session's span count differs from the spans stored (unless some were
// shed: the count includes those).
EventBalance BalanceOf(const Subprocess& producer, const daemon::SessionRecord& session,
                       StoreView& store);

// The pid of the running `daemon`, read from the instance lock it keeps
// beside its socket; 0 when it cannot be read.
pid_t DaemonPid(const DaemonProcess& daemon);

// VmRSS of process `pid` in KiB (/proc/PID/status); 0 when it is gone.
uint64_t ResidentKib(pid_t pid);

// VmRSS less RssShmem: the process's own memory (heap, stacks, the pages
// of its files), without the shared-memory pages it maps. For optraced
// the latter are the producers' rings, which the producers own and which
// count in every process that maps them.
uint64_t PrivateResidentKib(pid_t pid);

// Samples a process's RSS, whole and private (PrivateResidentKib), every
// 50 ms on a thread of its own until Stop.
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid), thread_([this] { Run(); }) {}
  ~RssSampler() { Stop(); }
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;
  void Stop();
  // REQUIRES: Stop() was called.
  uint64_t peak_kib() const { return peak_kib_; }
  // REQUIRES: Stop() was called.
  uint64_t private_peak_kib() const { return private_peak_kib_; }

 private:
  void Run();
  const pid_t pid_;
  std::atomic<bool> stop_{false};
  uint64_t peak_kib_ = 0;
  uint64_t private_peak_kib_ = 0;
  std::thread thread_;
};

// A channel to the daemon at unix socket `socket_path` on a connection of
// its own: gRPC shares one connection between channels with equal
// arguments, so each gets a unique "grpc.optrace_test_id".
std::shared_ptr<grpc::Channel> NewConnection(const std::string& socket_path);

// GetStatus on `stub` (2 s deadline): its response when the call is ok.
std::optional<v1::GetStatusResponse> DaemonStatus(v1::OpTrace::Stub& stub);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_RELIABILITY_RELIABILITY_HARNESS_H_
