// Producer-side cost of one traced op (a LAUNCH + COMPLETE pair), beside
// the baselines measured in the same run:
//   BM_OpPair_Enabled   optrace at trace level, a consumer thread draining;
//                       every 2048 pairs the timer pauses until the
//                       consumer has caught up, so the figure is the cost
//                       of recording every pair, never of dropping it
//   BM_OpPair_Disabled  optrace filtered out by the live level
//   BM_Fprintf_Pair     the two text lines with fprintf to an unbuffered
//                       /dev/null stream (what runtimes print today)
//   BM_FloorRing_Pair   a bare hand-written shared-memory ring: two rdtsc,
//                       two 64-byte stores, one release store, a consumer
//                       draining (the practical floor)
// docs/BENCHMARKS.md has the command and the figures.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <x86intrin.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "floor_ring.h"
#include "optrace/optrace.hpp"
#include "optrace/reader/attached_segment.h"
#include "optrace/reader/segment_drainer.h"

namespace {

// ---- optrace -------------------------------------------------------------

optrace::OpSite g_site("elementwise", "elementwise_add_4096_f32");

// Inlined into the loop, as an op is inlined into a runtime's dispatch code.
[[gnu::always_inline]] inline void OpPair() {
  optrace::ScopedOp op(g_site, optrace::Placement::Cpu(0));
  benchmark::DoNotOptimize(op.id());
}

void SetTrace(const benchmark::State&) { optrace::SetLevel(optrace::Level::kTrace); }
void SetOff(const benchmark::State&) { optrace::SetLevel(optrace::Level::kOff); }

// Events the benchmark threads recorded, and events the consumer drained.
std::atomic<uint64_t> g_events_written{0};
std::atomic<uint64_t> g_events_drained{0};

// Pairs between two waits for the consumer, and how far it may lag: both
// far below a 65536-event ring, so that no pair finds its ring full.
constexpr uint64_t kPairsPerBatch = 2048;
constexpr uint64_t kConsumerSlackEvents = 16384;

void BM_OpPair_Enabled(benchmark::State& state) {
  const uint64_t drops_before = optrace::GetDropCounts().ring_full;
  uint64_t pairs = 0;
  for (auto _ : state) {
    OpPair();
    if (++pairs % kPairsPerBatch == 0) [[unlikely]] {
      state.PauseTiming();
      const uint64_t written =
          g_events_written.fetch_add(2 * kPairsPerBatch, std::memory_order_relaxed) +
          2 * kPairsPerBatch;
      while (g_events_drained.load(std::memory_order_relaxed) + kConsumerSlackEvents < written) {
        std::this_thread::yield();
      }
      state.ResumeTiming();
    }
  }
  g_events_written.fetch_add(2 * (pairs % kPairsPerBatch), std::memory_order_relaxed);
  if (state.thread_index() == 0) {
    state.counters["drops"] =
        static_cast<double>(optrace::GetDropCounts().ring_full - drops_before);
  }
}
BENCHMARK(BM_OpPair_Enabled)->Setup(SetTrace)->Threads(1)->Threads(2)->UseRealTime();

void BM_OpPair_Disabled(benchmark::State& state) {
  for (auto _ : state) OpPair();
}
BENCHMARK(BM_OpPair_Disabled)->Setup(SetOff)->Threads(1)->Threads(2)->UseRealTime();

// A consumer that drains this process's own segment the way optraced does:
// a pass over all rings, then a short sleep when there was nothing to read.
class SelfDrainer {
 public:
  void Start() {
    optrace::GetLevel();  // creates the segment
    auto seg = optrace::reader::AttachedSegment::Attach(optrace::SegmentNameOrEmpty(), Policy());
    if (!seg.ok()) {
      std::fprintf(stderr, "bench_client: cannot attach own segment: %s\n",
                   seg.status().message().c_str());
      std::exit(1);
    }
    segment_ = std::move(seg).value();
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    stop_ = true;
    thread_.join();
  }

 private:
  static optrace::reader::AttachPolicy Policy() {
    optrace::reader::AttachPolicy p;
    p.ns = std::getenv("OPTRACE_NAMESPACE");
    return p;
  }
  void Run() {
    optrace::reader::SegmentDrainer drainer(*segment_);
    optrace::reader::ReaderStats stats;
    std::vector<optrace::abi::OpEvent> events;
    while (!stop_.load(std::memory_order_relaxed)) {
      events.clear();
      drainer.Drain(4096, optrace::reader::DrainMode::kLive, 0, &events, &stats);
      g_events_drained.fetch_add(events.size(), std::memory_order_relaxed);
      if (events.empty()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  std::unique_ptr<optrace::reader::AttachedSegment> segment_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// ---- fprintf baseline ----------------------------------------------------

FILE* g_devnull = nullptr;

void BM_Fprintf_Pair(benchmark::State& state) {
  uint64_t id = 40000;
  for (auto _ : state) {
    ++id;
    std::fprintf(g_devnull, "[OP] LAUNCH %s [id=%llu] target=%s:%d\n", "elementwise",
                 static_cast<unsigned long long>(id), "cpu", 0);
    std::fprintf(g_devnull, "[OP] COMPLETE %s [id=%llu] target=%s:%d\n", "elementwise",
                 static_cast<unsigned long long>(id), "cpu", 0);
  }
}
BENCHMARK(BM_Fprintf_Pair)->Threads(1)->Threads(2)->UseRealTime();

// ---- clocks: what one timestamp costs on this machine -------------------

void BM_Rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
}
BENCHMARK(BM_Rdtsc);

void BM_ClockGettimeMonotonic(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeMonotonic);

// ---- the floor: a bare per-thread shared-memory ring (floor_ring.h) ------

void BM_FloorRing_Pair(benchmark::State& state) {
  const uint64_t drops_before = optrace::bench::FloorDrops();
  uint64_t id = 0;
  for (auto _ : state) optrace::bench::FloorPair(++id);
  if (state.thread_index() == 0) {
    state.counters["drops"] = static_cast<double>(optrace::bench::FloorDrops() - drops_before);
  }
}
BENCHMARK(BM_FloorRing_Pair)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  // A namespace of our own, so a daemon on this machine does not drain (and
  // compete for) the benchmark's segment; rings as large as the floor's.
  const std::string ns = "bench" + std::to_string(::getpid());
  ::setenv("OPTRACE_NAMESPACE", ns.c_str(), 1);
  ::setenv("OPTRACE_RING_CAPACITY", "65536", 0);
  g_devnull = std::fopen("/dev/null", "w");
  std::setvbuf(g_devnull, nullptr, _IONBF, 0);  // unbuffered, like stderr

  SelfDrainer optrace_consumer;
  optrace_consumer.Start();
  optrace::bench::FloorRings floor_rings;  // maps the rings, starts their consumer
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  optrace_consumer.Stop();
  return 0;  // floor_rings stops its consumer here
}
