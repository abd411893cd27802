// A producer that offers a chosen rate of op pairs, for end-to-end
// measurements (tests/bench/e2e_bench.sh):
//   optrace-load --threads N --rate PAIRS_PER_SECOND --seconds S [--nest 1]
// --rate 0 means as fast as possible. --nest 1 runs each burst of 64
// pairs inside one more op (counted among the pairs), so that nearly
// every span has a parent whose self time it subtracts from. Prints at the end
// "done launches=N completes=N ring_full=N no_ring=N seconds=S".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "optrace/optrace.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int threads = 1;
  double rate = 0;
  double seconds = 10;
  bool nest = false;  // each burst inside an outer op
};

optrace::OpSite g_site("elementwise", "elementwise_add_4096_f32");
optrace::OpSite g_outer_site("block", "block_64_ops");

// Emits pairs at `rate` per second (0: unpaced) until `end`; returns how
// many were recorded.
long RunThread(double rate, bool nest, Clock::time_point end) {
  constexpr long kBurst = 64;  // pairs between clock reads
  long pairs = 0;
  const Clock::time_point start = Clock::now();
  while (true) {
    {
      std::optional<optrace::ScopedOp> outer;
      if (nest) pairs += outer.emplace(g_outer_site, optrace::Placement::Cpu(0)).id() != 0;
      for (long i = 0; i < kBurst; ++i) {
        optrace::ScopedOp op(g_site, optrace::Placement::Cpu(0));
        pairs += op.id() != 0;
      }
    }
    const Clock::time_point now = Clock::now();
    if (now >= end) break;
    if (rate > 0) {
      const auto due =
          start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(static_cast<double>(pairs) / rate));
      if (due > now) std::this_thread::sleep_until(due);
    }
  }
  return pairs;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0)
      a.threads = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--rate") == 0)
      a.rate = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seconds") == 0)
      a.seconds = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--nest") == 0)
      a.nest = std::atoi(argv[i + 1]) != 0;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  optrace::GetLevel();  // create the segment before the clock starts
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the daemon attach
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::vector<long> pairs(static_cast<size_t>(a.threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < a.threads; ++t) {
    threads.emplace_back(
        [&, t] { pairs[static_cast<size_t>(t)] = RunThread(a.rate / a.threads, a.nest, end); });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  long total = 0;
  for (long p : pairs) total += p;
  const optrace::DropCounts d = optrace::GetDropCounts();
  std::printf("done launches=%ld completes=%ld ring_full=%llu no_ring=%llu seconds=%.3f\n", total,
              total, static_cast<unsigned long long>(d.ring_full),
              static_cast<unsigned long long>(d.no_ring), elapsed);
  return 0;
}
