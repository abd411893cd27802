// Cost per traced op (a LAUNCH + COMPLETE pair carrying name, op id, target
// and device) of one way of recording ops, for tests/bench/side_by_side.sh,
// which runs every mode on the same machine and prints the table of
// docs/BENCHMARKS.md ("Side by side"):
//
//   optrace-enabled   optrace::ScopedOp at level trace (the script runs a
//                     real optraced draining)
//   optrace-disabled  the same op filtered out by the live level (off)
//   stderr            the two "[OP] ..." lines with fprintf(stderr), the op
//                     log runtimes print today (the script sends stderr to
//                     /dev/null or to a file)
//   spdlog-async      the same lines through spdlog's async logger into the
//                     file --log-file (built only with libspdlog-dev)
//   lttng             two LTTng-UST tracepoints with the same fields; enabled
//                     or not depending on the session the script set up
//                     (built only with liblttng-ust-dev)
//   floor             the hand-written shared-memory ring of floor_ring.h
//
//   bench_side_by_side --mode MODE [--threads N] [--rate PAIRS_PER_S]
//                      [--seconds S] [--reps R] [--warmup-seconds W]
//                      [--log-file PATH]
//   bench_side_by_side --list
//
// N producer threads issue the mode's op pair in batches of 256, each batch
// timed, at --rate pairs a second per thread (sleeping between batches to
// keep the pace; 0, the default, means back to back): W seconds of warm-up,
// then R timed repetitions of S seconds each, with no pause between them
// (a consumer that backs off when idle sees a steady flow). A repetition's
// cost is the threads' time inside batches over their pairs: what one
// producer thread pays per pair, without the sleeps. The optrace modes wait
// for an optraced (same OPTRACE_NAMESPACE) to attach to the process before
// they start. Prints, on stdout (stderr belongs to the "stderr" mode), one
// line per repetition and a summary:
//   rep=I mode=M threads=N pairs=P ns_per_pair=X pairs_per_s=Y dropped=D
//   done mode=M threads=N pairs_total=P recorded_total=R dropped_total=D enabled=0|1
// `pairs_per_s` is the pace reached, per thread; `pairs_total` counts every
// pair issued, warm-up included (the script compares it with what a tracer
// stored); `dropped` is the events the mode itself counted as lost
// (optrace's ring full, the floor's ring full), 0 where it counts nothing;
// `enabled` says whether the mode recorded (live level, LTTng tracepoint
// state). --list prints "MODE available" or "MODE missing: why".
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "floor_ring.h"
#include "op_pair_modes.h"
#include "optrace/optrace.hpp"

#ifdef OPTRACE_BENCH_HAVE_SPDLOG
#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

using optrace::bench::kDevice;
using optrace::bench::kOpName;
using optrace::bench::kTargetName;
using optrace::bench::OptraceMode;
#ifdef OPTRACE_BENCH_HAVE_LTTNG
using optrace::bench::LttngMode;
#endif

// ---- the modes: one op pair each (optrace's and LTTng's: op_pair_modes.h)
// Each mode's `static uint64_t Pair(uint64_t id)` records the LAUNCH and
// COMPLETE of op `id` its way, on the calling thread, and returns 1 when
// the pair was recorded, 0 when the mode filtered it out.

struct StderrMode {
  static uint64_t Pair(uint64_t id) {
    std::fprintf(stderr, "[OP] LAUNCH %s [id=%llu] target=%s:%d\n", kOpName,
                 static_cast<unsigned long long>(id), kTargetName, kDevice);
    std::fprintf(stderr, "[OP] COMPLETE %s [id=%llu] target=%s:%d\n", kOpName,
                 static_cast<unsigned long long>(id), kTargetName, kDevice);
    return 1;
  }
};

#ifdef OPTRACE_BENCH_HAVE_SPDLOG
spdlog::logger* g_spdlog = nullptr;  // owned by spdlog's registry

struct SpdlogMode {
  static uint64_t Pair(uint64_t id) {
    g_spdlog->info("[OP] LAUNCH {} [id={}] target={}:{}", kOpName, id, kTargetName, kDevice);
    g_spdlog->info("[OP] COMPLETE {} [id={}] target={}:{}", kOpName, id, kTargetName, kDevice);
    return 1;
  }
};
#endif

struct FloorMode {
  static uint64_t Pair(uint64_t id) {
    optrace::bench::FloorPair(id);
    return 1;
  }
};

// ---- the harness ----------------------------------------------------------

// The command line (see the top of the file).
struct Options {
  std::string mode;
  int threads = 1;
  double seconds = 0.3;
  double rate = 0;  // pairs a second per thread, 0 = back to back
  double warmup_seconds = 0.2;
  int reps = 1;
  std::string log_file;
  bool list = false;
};

// One thread's running totals, sampled when each period starts (warm-up,
// each repetition) and when the run ends.
struct ThreadMarks {
  std::vector<double> busy_ns;  // time spent inside batches of op pairs
  std::vector<uint64_t> pairs;
  std::vector<Clock::time_point> at;
  uint64_t recorded = 0;
};

// Main advances `g_period` (0 warm-up, 1..R repetitions, R+1 stop); each
// producer notices it between batches and samples its totals.
// Relaxed: only a signal, no data travels with it.
std::atomic<int> g_period{0};

// Pairs between two clock reads: the reads (about 20-30 ns each here) add
// at most 0.25 ns to a pair, in every row alike.
constexpr int kBatchPairs = 256;

// Issues batches of op pairs, `rate` pairs a second (0: back to back),
// timing each batch; sleeps between batches to keep the pace. Op ids are
// small and unique across threads (thread t issues t+1, t+1+N, ...), as a
// runtime's op counter would make them.
template <typename Mode>
void Produce(int thread_index, int threads, double rate, int last_period, ThreadMarks* marks,
             std::barrier<>* ready) {
  const auto stride = static_cast<uint64_t>(threads);
  uint64_t id = static_cast<uint64_t>(thread_index) + 1 - stride;
  uint64_t pairs = 0;
  uint64_t recorded = 0;
  double busy_ns = 0;
  int period = 0;
  ready->arrive_and_wait();
  const Clock::time_point start = Clock::now();
  marks->busy_ns.push_back(0);
  marks->pairs.push_back(0);
  marks->at.push_back(start);
  while (true) {
    const Clock::time_point b0 = Clock::now();
    for (int i = 0; i < kBatchPairs; ++i) recorded += Mode::Pair(id += stride);
    const Clock::time_point b1 = Clock::now();
    busy_ns += std::chrono::duration<double, std::nano>(b1 - b0).count();
    pairs += kBatchPairs;
    const int now_period = g_period.load(std::memory_order_relaxed);
    if (now_period != period) [[unlikely]] {
      period = now_period;
      marks->busy_ns.push_back(busy_ns);
      marks->pairs.push_back(pairs);
      marks->at.push_back(b1);
      if (period > last_period) break;
    }
    if (rate > 0) {
      const Clock::time_point due =
          start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(static_cast<double>(pairs) / rate));
      if (due > b1) std::this_thread::sleep_until(due);
    }
  }
  marks->recorded = recorded;
}

// Events the mode counted as lost so far, 0 where it counts nothing.
uint64_t DroppedSoFar(std::string_view mode) {
  if (mode == "floor") return 2 * optrace::bench::FloorDrops();  // it counts pairs
  if (mode.starts_with("optrace")) return optrace::GetDropCounts().ring_full;
  return 0;
}

// Runs `o.threads` producers of `Mode` through the warm-up and `o.reps`
// repetitions and prints the "rep=" and "done" lines; `enabled` is echoed
// in "done". Returns the process's exit code (0).
template <typename Mode>
int Run(const Options& o, bool enabled) {
  std::vector<ThreadMarks> marks(static_cast<size_t>(o.threads));
  std::barrier<> ready(o.threads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < o.threads; ++t) {
    threads.emplace_back(Produce<Mode>, t, o.threads, o.rate, o.reps,
                         &marks[static_cast<size_t>(t)], &ready);
  }
  const auto sleep_for = [](double s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
  };
  std::vector<uint64_t> dropped_at;
  ready.arrive_and_wait();
  sleep_for(o.warmup_seconds);
  for (int period = 1; period <= o.reps + 1; ++period) {
    dropped_at.push_back(DroppedSoFar(o.mode));
    g_period.store(period, std::memory_order_relaxed);
    if (period <= o.reps) sleep_for(o.seconds);
  }
  for (auto& t : threads) t.join();

  uint64_t pairs_total = 0;
  uint64_t recorded_total = 0;
  for (const ThreadMarks& m : marks) {
    pairs_total += m.pairs.back();
    recorded_total += m.recorded;
  }
  for (int r = 1; r <= o.reps; ++r) {
    // Samples: [0] start, [1] end of warm-up, [r + 1] end of repetition r.
    const auto i = static_cast<size_t>(r);
    double busy_ns = 0;
    double wall_s = 0;
    uint64_t pairs = 0;
    for (const ThreadMarks& m : marks) {
      busy_ns += m.busy_ns[i + 1] - m.busy_ns[i];
      wall_s += std::chrono::duration<double>(m.at[i + 1] - m.at[i]).count();
      pairs += m.pairs[i + 1] - m.pairs[i];
    }
    std::printf(
        "rep=%d mode=%s threads=%d pairs=%llu ns_per_pair=%.3f pairs_per_s=%.0f "
        "dropped=%llu\n",
        r, o.mode.c_str(), o.threads, static_cast<unsigned long long>(pairs),
        busy_ns / static_cast<double>(pairs), static_cast<double>(pairs) / wall_s,
        static_cast<unsigned long long>(dropped_at[i] - dropped_at[i - 1]));
  }
  std::printf(
      "done mode=%s threads=%d pairs_total=%llu recorded_total=%llu dropped_total=%llu "
      "enabled=%d\n",
      o.mode.c_str(), o.threads, static_cast<unsigned long long>(pairs_total),
      static_cast<unsigned long long>(recorded_total),
      static_cast<unsigned long long>(DroppedSoFar(o.mode)), enabled ? 1 : 0);
  return 0;
}

// Creates this process's segment and waits until a daemon has attached to
// it (the header's daemon_pid), so that a timed period never includes the
// daemon's discovery. Returns false after 5 s.
bool WaitForDaemon() {
  optrace::GetLevel();  // creates the segment
  std::string name = optrace::SegmentNameOrEmpty();
  if (name.empty()) return false;
  if (name.front() != '/') name.insert(0, "/");
  const int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  void* p = ::mmap(nullptr, sizeof(optrace::abi::SegmentHeader), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  const auto* header = static_cast<const optrace::abi::SegmentHeader*>(p);
  bool attached = false;
  for (int i = 0; i < 500 && !attached; ++i) {
    // Acquire: pairs with the daemon's store when it attaches.
    attached = header->daemon_pid.load(std::memory_order_acquire) != 0;
    if (!attached) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::munmap(p, sizeof(optrace::abi::SegmentHeader));
  return attached;
}

// Sets this process's level and waits until the live level (which the
// attached daemon writes) says the same. Returns false after 5 s.
bool SetOptraceLevel(optrace::Level level) {
  optrace::SetLevel(level);
  for (int i = 0; i < 500; ++i) {
    if (optrace::GetLevel() == level) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Prints which modes this build has, and why one is missing.
void List() {
  std::printf("optrace-enabled available\noptrace-disabled available\nstderr available\n");
#ifdef OPTRACE_BENCH_HAVE_SPDLOG
  std::printf("spdlog-async available\n");
#else
  std::printf(
      "spdlog-async missing: built without spdlog (find_package(spdlog) failed at "
      "configure; Debian: libspdlog-dev)\n");
#endif
#ifdef OPTRACE_BENCH_HAVE_LTTNG
  std::printf("lttng available\n");
#else
  std::printf(
      "lttng missing: built without LTTng-UST (pkg-config lttng-ust failed at "
      "configure; Debian: liblttng-ust-dev)\n");
#endif
  std::printf("floor available\n");
}

// Fills `o` from the command line. Returns false on an unknown flag, a
// flag without its value, or a value out of range.
bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--list") {
      o->list = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (flag == "--mode") {
      o->mode = value;
    } else if (flag == "--threads") {
      o->threads = std::atoi(value);
    } else if (flag == "--rate") {
      o->rate = std::atof(value);
    } else if (flag == "--seconds") {
      o->seconds = std::atof(value);
    } else if (flag == "--warmup-seconds") {
      o->warmup_seconds = std::atof(value);
    } else if (flag == "--reps") {
      o->reps = std::atoi(value);
    } else if (flag == "--log-file") {
      o->log_file = value;
    } else {
      return false;
    }
  }
  return o->list ||
         (!o->mode.empty() && o->threads >= 1 && o->threads <= optrace::bench::kFloorRings &&
          o->seconds > 0 && o->warmup_seconds >= 0 && o->reps >= 1 && o->rate >= 0);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    std::printf(
        "usage: %s --mode MODE [--threads 1..%d] [--rate PAIRS_PER_S] [--seconds S] "
        "[--reps R] [--warmup-seconds W] [--log-file PATH] | --list\n",
        argv[0], optrace::bench::kFloorRings);
    return 2;
  }
  if (o.list) {
    List();
    return 0;
  }
  if (o.mode == "optrace-enabled" || o.mode == "optrace-disabled") {
    const bool on = o.mode == "optrace-enabled";
    const optrace::Level want = on ? optrace::Level::kTrace : optrace::Level::kOff;
    if (!WaitForDaemon()) {
      std::printf(
          "bench_side_by_side: no optraced attached to segment '%s' within 5 s "
          "(OPTRACE_NAMESPACE must match the daemon's)\n",
          optrace::SegmentNameOrEmpty());
      return 1;
    }
    if (!SetOptraceLevel(want)) {
      std::printf("bench_side_by_side: live level is %d, not %d, after 5 s\n",
                  static_cast<int>(optrace::GetLevel()), static_cast<int>(want));
      return 1;
    }
    return Run<OptraceMode>(o, on);
  }
  if (o.mode == "stderr") return Run<StderrMode>(o, true);
  if (o.mode == "floor") {
    optrace::bench::FloorRings rings;
    return Run<FloorMode>(o, true);
  }
#ifdef OPTRACE_BENCH_HAVE_SPDLOG
  if (o.mode == "spdlog-async") {
    if (o.log_file.empty()) {
      std::printf("bench_side_by_side: spdlog-async needs --log-file\n");
      return 2;
    }
    // spdlog's defaults: a queue of 8192 messages, one worker thread, and
    // producers that block when the queue is full.
    spdlog::init_thread_pool(8192, 1);
    auto logger = spdlog::create_async<spdlog::sinks::basic_file_sink_mt>("ops", o.log_file, true);
    logger->set_pattern("%v");  // the line exactly as the stderr log prints it
    g_spdlog = logger.get();
    const int rc = Run<SpdlogMode>(o, true);
    g_spdlog = nullptr;
    logger.reset();
    spdlog::shutdown();  // writes what is still queued
    return rc;
  }
#endif
#ifdef OPTRACE_BENCH_HAVE_LTTNG
  if (o.mode == "lttng") {
    // The session (if any) enabled the events while the program registered
    // with the session daemon, before main.
    return Run<LttngMode>(o, lttng_ust_tracepoint_enabled(optrace_bench, launch) != 0);
  }
#endif
  std::printf("bench_side_by_side: mode '%s' is unknown or not built (see --list)\n",
              o.mode.c_str());
  return 2;
}
