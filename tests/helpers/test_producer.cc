// A real producer process for tests: traces a known pattern of ops through
// liboptrace and reports on stdout what it did, so a consumer can check
// that everything written was read or counted as dropped.
//
//   optrace-test-producer [--threads N] [--ops M] [--wait-stdin]
//                         [--forever] [--hold-open NAME] [--rate OPS_PER_SEC]
//
// Each thread runs M iterations of: a scoped "outer" op containing a scoped
// "inner" op (so parents can be checked), tag "shape_<i % 8>" interned at
// run time. stdout lines: "segment=<name>" once the segment exists,
// "ready" before the ops start, and at the end
// "done launches=<n> completes=<n> ring_full=<n> no_ring=<n> no_segment=<n>".
// --forever runs until SIGTERM or SIGINT, then reports and exits cleanly.
// --hold-open NAME, after the ops, opens op NAME, prints "holding=<op id>"
// and sleeps until killed.
// --rate paces each thread's ops (LAUNCH/COMPLETE pairs) to that many a
// second, busy-waiting between iterations, as a runtime that records at a
// steady rate from its first op.
// --sleeps instead runs ops of known length on one thread: 20 x "sleep_2ms"
// and 10 x "sleep_5ms" (each sleeps that long inside the op), then reports.
// --tagged NAME TAG (repeatable), after the other ops, runs one op named
// NAME with the tag TAG as given (any bytes, e.g. a malformed fused tag).
// --names-capped N, after those, counts N names replaced at a cap
// (optrace_count_names_capped), as an instrumentation layer past its cap
// does; exits 3 if that fails.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"

namespace {

struct Args {
  int threads = 1;
  long ops = 1000;
  bool wait_stdin = false;
  bool forever = false;
  const char* hold_open = nullptr;
  bool sleeps = false;
  std::vector<std::pair<const char*, const char*>> tagged;  // name, tag
  long rate = 0;  // ops per second per thread; 0 = back to back
  uint64_t names_capped = 0;
};

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--threads") {
      a.threads = std::atoi(next());
    } else if (flag == "--ops") {
      a.ops = std::atol(next());
    } else if (flag == "--wait-stdin") {
      a.wait_stdin = true;
    } else if (flag == "--forever") {
      a.forever = true;
    } else if (flag == "--rate") {
      a.rate = std::atol(next());
    } else if (flag == "--sleeps") {
      a.sleeps = true;
    } else if (flag == "--tagged") {
      const char* name = next();
      a.tagged.emplace_back(name, next());
    } else if (flag == "--names-capped") {
      a.names_capped = std::strtoull(next(), nullptr, 10);
    } else if (flag == "--hold-open") {
      a.hold_open = next();
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return a;
}

std::atomic<long> g_launches{0};
std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop.store(true); }

// Ops whose durations the test knows: a lower bound, to compare with the
// daemon's statistics.
void RunSleeps() {
  static optrace::OpSite two("sleep_2ms");
  static optrace::OpSite five("sleep_5ms");
  for (int i = 0; i < 30; ++i) {
    optrace::OpSite& site = i % 3 == 2 ? five : two;
    optrace::ScopedOp op(site);
    std::this_thread::sleep_for(std::chrono::milliseconds(i % 3 == 2 ? 5 : 2));
    g_launches.fetch_add(op.id() != 0);
  }
}

void RunOps(long ops, bool forever, long rate) {
  // Each iteration records two ops.
  const int64_t period_ns = rate > 0 ? 2'000'000'000 / rate : 0;
  const auto start = std::chrono::steady_clock::now();
  static optrace::OpSite outer("outer");
  static optrace::OpSite inner("inner", "inner_static_tag");
  uint32_t tags[8];
  for (int t = 0; t < 8; ++t) tags[t] = optrace::Intern("shape_" + std::to_string(t));
  long launched = 0;
  for (long i = 0; forever ? !g_stop.load(std::memory_order_relaxed) : i < ops; ++i) {
    if (period_ns > 0) {
      const auto due = start + std::chrono::nanoseconds(period_ns * i);
      while (std::chrono::steady_clock::now() < due) {
      }
    }
    optrace::ScopedOp a(outer, optrace::Placement::Cpu(0), tags[i % 8]);
    optrace::ScopedOp b(inner, optrace::Placement::Gpu(1, 7));
    launched += (a.id() != 0) + (b.id() != 0);
  }
  g_launches.fetch_add(launched);
}

// One op per --tagged NAME TAG, in order, on this thread.
void RunTagged(const std::vector<std::pair<const char*, const char*>>& tagged) {
  for (const auto& [name, tag] : tagged) {
    optrace::OpSite site(name);  // outlives its op
    optrace::ScopedOp op(site, optrace::Placement::Cpu(0), optrace::Intern(tag));
    g_launches.fetch_add(op.id() != 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = Parse(argc, argv);
  {
    // The first op creates the segment; announce it so a consumer can attach.
    static optrace::OpSite start("start");
    optrace::ScopedOp op(start);
    g_launches.fetch_add(op.id() != 0);
  }
  std::printf("segment=%s\n", optrace::SegmentNameOrEmpty());
  std::fflush(stdout);
  if (args.wait_stdin) {
    std::string line;
    std::getline(std::cin, line);
  }
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
  std::printf("ready\n");
  std::fflush(stdout);
  std::vector<std::thread> threads;
  for (int t = 0; t < args.threads; ++t) {
    if (args.sleeps) {
      threads.emplace_back(RunSleeps);
    } else {
      threads.emplace_back(RunOps, args.ops, args.forever, args.rate);
    }
  }
  for (auto& t : threads) t.join();
  RunTagged(args.tagged);
  if (args.names_capped > 0) {
    const int rc = optrace_count_names_capped(args.names_capped);
    if (rc != 0) {
      std::fprintf(stderr, "optrace_count_names_capped: %s\n", std::strerror(-rc));
      return 3;
    }
  }
  if (args.hold_open != nullptr) {
    static optrace::OpSite held(args.hold_open);
    optrace::ScopedOp op(held);
    std::printf("holding=%llu launches=%ld\n", static_cast<unsigned long long>(op.id()),
                g_launches.load());
    std::fflush(stdout);
    while (true) ::pause();
  }
  const optrace::DropCounts d = optrace::GetDropCounts();
  // Every recorded LAUNCH has its COMPLETE: launches == completes.
  std::printf("done launches=%ld completes=%ld ring_full=%llu no_ring=%llu no_segment=%llu\n",
              g_launches.load(), g_launches.load(), static_cast<unsigned long long>(d.ring_full),
              static_cast<unsigned long long>(d.no_ring),
              static_cast<unsigned long long>(d.no_segment));
  std::fflush(stdout);
  return 0;
}
