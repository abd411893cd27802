// Producer-side cost of one traced op (a LAUNCH + COMPLETE pair), beside
// the baselines measured in the same run:
//   BM_OpPair_Enabled   optrace at trace level, a consumer thread draining
//   BM_OpPair_Disabled  optrace filtered out by the live level
//   BM_Fprintf_Pair     the two text lines with fprintf to an unbuffered
//                       /dev/null stream (what runtimes print today)
//   BM_FloorRing_Pair   a bare hand-written shared-memory ring: two rdtsc,
//                       two 64-byte stores, one release store, a consumer
//                       draining (the practical floor)
// docs/BENCHMARKS.md has the command and the figures.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
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

void BM_OpPair_Enabled(benchmark::State& state) {
  const uint64_t drops_before = optrace::GetDropCounts().ring_full;
  for (auto _ : state) OpPair();
  if (state.thread_index() == 0) {
    state.counters["drops"] = static_cast<double>(optrace::GetDropCounts().ring_full - drops_before);
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

// ---- the floor: a bare per-thread shared-memory ring ---------------------

struct FloorEvent {
  uint64_t ts, id, a, b, c, d, e, f;
};
static_assert(sizeof(FloorEvent) == 64);

constexpr uint64_t kFloorCapacity = 65536;
constexpr int kFloorRings = 8;

struct FloorRing {
  alignas(64) std::atomic<uint64_t> head{0};
  alignas(64) std::atomic<uint64_t> tail{0};
  alignas(64) FloorEvent slots[kFloorCapacity];
};

FloorRing* g_floor = nullptr;  // kFloorRings rings in one shared mapping
std::atomic<int> g_floor_next{0};
std::atomic<uint64_t> g_floor_drops{0};

struct FloorWriter {
  FloorRing* ring = nullptr;
  uint64_t pos = 0;
  uint64_t cached_tail = 0;
};
thread_local FloorWriter tls_floor;

inline void FloorPair(uint64_t id) {
  FloorWriter& w = tls_floor;
  if (w.ring == nullptr) [[unlikely]] {
    w.ring = &g_floor[g_floor_next.fetch_add(1) % kFloorRings];
    w.pos = w.ring->head.load(std::memory_order_relaxed);
  }
  if (w.pos + 2 - w.cached_tail > kFloorCapacity) [[unlikely]] {
    w.cached_tail = w.ring->tail.load(std::memory_order_acquire);
    if (w.pos + 2 - w.cached_tail > kFloorCapacity) {
      g_floor_drops.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  FloorEvent e{__rdtsc(), id, 1, 0, 0, 0, 0, 0};
  std::memcpy(&w.ring->slots[w.pos & (kFloorCapacity - 1)], &e, sizeof e);
  e.ts = __rdtsc();
  e.a = 2;
  std::memcpy(&w.ring->slots[(w.pos + 1) & (kFloorCapacity - 1)], &e, sizeof e);
  w.pos += 2;
  w.ring->head.store(w.pos, std::memory_order_release);
}

void BM_FloorRing_Pair(benchmark::State& state) {
  const uint64_t drops_before = g_floor_drops.load();
  uint64_t id = 0;
  for (auto _ : state) FloorPair(++id);
  if (state.thread_index() == 0) {
    state.counters["drops"] = static_cast<double>(g_floor_drops.load() - drops_before);
  }
}
BENCHMARK(BM_FloorRing_Pair)->Threads(1)->Threads(2)->UseRealTime();

class FloorDrainer {
 public:
  void Start() {
    void* p = ::mmap(nullptr, sizeof(FloorRing) * kFloorRings, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    g_floor = new (p) FloorRing[kFloorRings];
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() {
    stop_ = true;
    thread_.join();
  }

 private:
  void Run() {
    std::vector<FloorEvent> copy(4096);
    while (!stop_.load(std::memory_order_relaxed)) {
      bool any = false;
      for (int r = 0; r < kFloorRings; ++r) {
        FloorRing& ring = g_floor[r];
        const uint64_t head = ring.head.load(std::memory_order_acquire);
        uint64_t tail = ring.tail.load(std::memory_order_relaxed);
        while (tail < head) {
          const uint64_t n = std::min<uint64_t>({head - tail, copy.size(),
                                                 kFloorCapacity - (tail & (kFloorCapacity - 1))});
          std::memcpy(copy.data(), &ring.slots[tail & (kFloorCapacity - 1)], n * sizeof(FloorEvent));
          tail += n;
          any = true;
        }
        ring.tail.store(tail, std::memory_order_release);
      }
      if (!any) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

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
  FloorDrainer floor_consumer;
  optrace_consumer.Start();
  floor_consumer.Start();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  optrace_consumer.Stop();
  floor_consumer.Stop();
  return 0;
}
