// Cost of one NVTX range pair (nvtxRangePushA + nvtxRangePop) as an
// application pays it, with whatever tool NVTX_INJECTION64_PATH names (or
// none). Built against the NVTX headers only, never linked with optrace:
// nvtx_overhead.sh runs it without a tool, with liboptrace_nvtx.so at level
// trace (a daemon draining) and with it at level off.
//
//   nvtx_overhead [--pairs N] [--reps R] [--pause-ms P] [--warmup-pairs W]
//
// W untimed pairs first load the tool, create the segment and touch the
// ring's slots (give W = ring capacity / 2: first touches of shared memory
// are page faults, paid once per process, not per range). Each repetition
// then times N pairs in a tight loop and pauses P ms, so
// that a daemon can drain the ring before the next one. Prints one line:
//   median_ns_per_pair=.. min_ns_per_pair=.. max_ns_per_pair=.. pairs=.. reps=..
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

struct Options {
  long pairs = 100000;
  int reps = 10;
  int pause_ms = 200;
  long warmup_pairs = 1000;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (value <= 0 && std::strcmp(argv[i], "--pause-ms") != 0) return false;
    if (std::strcmp(argv[i], "--pairs") == 0) {
      o->pairs = value;
    } else if (std::strcmp(argv[i], "--reps") == 0) {
      o->reps = static_cast<int>(value);
    } else if (std::strcmp(argv[i], "--pause-ms") == 0) {
      o->pause_ms = static_cast<int>(value);
    } else if (std::strcmp(argv[i], "--warmup-pairs") == 0) {
      o->warmup_pairs = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) {
    std::fprintf(stderr, "usage: %s [--pairs N] [--reps R] [--pause-ms P] [--warmup-pairs W]\n",
                 argv[0]);
    return 2;
  }
  for (long i = 0; i < o.warmup_pairs; ++i) {
    nvtxRangePushA("bench_op");
    nvtxRangePop();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(o.pause_ms));
  std::vector<double> ns_per_pair;
  for (int r = 0; r < o.reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < o.pairs; ++i) {
      nvtxRangePushA("bench_op");
      nvtxRangePop();
    }
    const auto t1 = std::chrono::steady_clock::now();
    ns_per_pair.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                          static_cast<double>(o.pairs));
    std::this_thread::sleep_for(std::chrono::milliseconds(o.pause_ms));
  }
  std::vector<double> sorted = ns_per_pair;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  std::printf(
      "median_ns_per_pair=%.2f min_ns_per_pair=%.2f max_ns_per_pair=%.2f pairs=%ld reps=%d\n",
      median, sorted.front(), sorted.back(), o.pairs, o.reps);
  return 0;
}
