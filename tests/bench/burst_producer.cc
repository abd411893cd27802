// A short-lived process that records N op pairs (LAUNCH + COMPLETE with
// name, op id, target and device) from its first instruction, then exits:
// the start-up burst of tests/bench/burst.sh, through optrace or LTTng-UST.
//
//   bench_burst_producer --mode optrace|lttng [--threads T] [--pairs N]
//                        [--rate PAIRS_PER_S]
//   bench_burst_producer --list
//
// T threads start together at main's first line and each records N pairs,
// back to back (--rate 0, the default) or paced at --rate pairs a second
// per thread (busy-waiting to the schedule, so that the pace holds at
// millions a second). Nothing is set up beforehand: optrace's first op
// creates the segment (and, with a daemon running, waits for its attach:
// the start-up handshake), LTTng's tracepoints are registered by its
// library constructor. Prints, on stdout:
//   done mode=M threads=T pairs_total=P seconds=S dropped=D
// `pairs_total` counts every pair issued; `seconds` runs from main's first
// line to the last thread's last pair; `dropped` is what the mode counted
// as lost itself (optrace: ring full + no ring + no segment; LTTng counts
// nothing in the process). --list prints "MODE available" or "MODE missing".
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "op_pair_modes.h"
#include "optrace/optrace.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using optrace::bench::OptraceMode;
#ifdef OPTRACE_BENCH_HAVE_LTTNG
using optrace::bench::LttngMode;
#endif

// Records `pairs` pairs on the calling thread, at `rate` a second (0: back
// to back), from `start` on.
template <typename Mode>
void Record(uint64_t pairs, uint64_t rate, Clock::time_point start, uint64_t first_id) {
  const int64_t period_ns = rate > 0 ? static_cast<int64_t>(1'000'000'000 / rate) : 0;
  for (uint64_t i = 0; i < pairs; ++i) {
    if (period_ns > 0) {
      const auto due = start + std::chrono::nanoseconds(period_ns * static_cast<int64_t>(i));
      while (Clock::now() < due) {
      }
    }
    Mode::Pair(first_id + i);
  }
}

template <typename Mode>
double RunThreads(int threads, uint64_t pairs, uint64_t rate, Clock::time_point start) {
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) {
    workers.emplace_back(Record<Mode>, pairs, rate, start, uint64_t(t) * pairs);
  }
  Record<Mode>(pairs, rate, start, 0);  // main records too: from its first line
  for (auto& w : workers) w.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Clock::time_point start = Clock::now();
  std::string mode;
  int threads = 1;
  uint64_t pairs = 1'000'000;
  uint64_t rate = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--list") {
      std::printf("optrace available\n");
#ifdef OPTRACE_BENCH_HAVE_LTTNG
      std::printf("lttng available\n");
#else
      std::printf("lttng missing: built without LTTng-UST (Debian: liblttng-ust-dev)\n");
#endif
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", flag.c_str());
      return 2;
    }
    const char* value = argv[++i];
    if (flag == "--mode") {
      mode = value;
    } else if (flag == "--threads") {
      threads = std::max(1, std::atoi(value));
    } else if (flag == "--pairs") {
      pairs = std::strtoull(value, nullptr, 10);
    } else if (flag == "--rate") {
      rate = std::strtoull(value, nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  double seconds = 0;
  uint64_t dropped = 0;
  if (mode == "optrace") {
    seconds = RunThreads<OptraceMode>(threads, pairs, rate, start);
    const optrace::DropCounts d = optrace::GetDropCounts();
    dropped = d.ring_full + d.no_ring + d.no_segment;
#ifdef OPTRACE_BENCH_HAVE_LTTNG
  } else if (mode == "lttng") {
    seconds = RunThreads<LttngMode>(threads, pairs, rate, start);
#endif
  } else {
    std::fprintf(stderr, "--mode must be optrace or lttng (see --list), not '%s'\n", mode.c_str());
    return 2;
  }
  std::printf("done mode=%s threads=%d pairs_total=%llu seconds=%.6f dropped=%llu\n", mode.c_str(),
              threads, static_cast<unsigned long long>(pairs * static_cast<uint64_t>(threads)),
              seconds, static_cast<unsigned long long>(dropped));
  return 0;
}
