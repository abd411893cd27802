// A real producer process for tests: traces a known pattern of ops through
// liboptrace and reports on stdout what it did, so a consumer can check
// that everything written was read or counted as dropped.
//
//   optrace-test-producer [--threads N] [--ops M] [--wait-stdin]
//                         [--forever] [--hold-open NAME] [--rate OPS_PER_SEC]
//                         [--sleeps] [--uneven-threads]
//                         [--steps N [--slow-step K [--slow-ms M]] [--step-api cxx|c|boundary]]
//                         [--keep-at N [--keep-reason TEXT]] [--fork-child]
//                         [--at FILE LINE NAME]... [--register-listing NAME FILE]
//
// Each thread runs M iterations of: a scoped "outer" op containing a scoped
// "inner" op (so parents can be checked), tag "shape_<i % 8>" interned at
// run time. stdout lines: "segment=<name>" once the segment exists,
// "ready" before the ops start, and at the end
// "done launches=<n> completes=<n> ring_full=<n> no_ring=<n> no_segment=<n>".
// --forever runs until SIGTERM or SIGINT, then reports and exits cleanly.
// --keep-at N calls optrace_keep(TEXT) (--keep-reason, default "test")
// inside iteration N (0-based) of each thread's ops, within its "outer"
// and "inner" ops, and prints "kept op=<outer's op id> rc=<its return>".
// --fork-child, after the ops, forks a child that never traces and sleeps
// until killed (its stdio on /dev/null), and prints "child=<pid>".
// --hold-open NAME, after the ops, opens op NAME, prints "holding=<op id>"
// and sleeps until killed.
// --rate paces each thread's ops (LAUNCH/COMPLETE pairs) to that many a
// second, busy-waiting between iterations, as a runtime that records at a
// steady rate from its first op.
// --sleeps instead runs ops of known length on one thread: 20 x "sleep_2ms"
// and 10 x "sleep_5ms" (each sleeps that long inside the op), then reports.
// --uneven-threads instead runs two threads of different load: one runs
// 5 x "busy_op" (each sleeps 20 ms inside the op) back to back; the other
// 5 x "light_op" (each sleeps 1 ms inside the op) with a 20 ms sleep
// outside any op between them.
// --steps N instead runs N steps (optrace.step ops) on each thread (one
// unless --threads), each with ops of known length inside it, in order:
// "load_batch" (sleeps 1 ms), "forward" (sleeps 3 ms, then runs a nested
// "matmul" that sleeps 2 ms), "backward" (sleeps 2 ms); step K of
// --slow-step K (1-based) also runs "slow_only" (sleeps M ms, --slow-ms,
// default 30) last.
// --step-api picks how the steps are recorded: cxx (the default) an
// optrace::Step per iteration, c optrace_step_begin/optrace_step_end,
// boundary optrace_step() at the top of each iteration and
// optrace_step_finish() after the loop.
// --tagged NAME TAG (repeatable), after the other ops, runs one op named
// NAME with the tag TAG as given (any bytes, e.g. a malformed fused tag).
// --at FILE LINE NAME (repeatable), after those, runs one op named NAME
// whose source location is FILE:LINE (optrace_intern_location: its listing
// is read from FILE by liboptrace), and prints "at op=<id>".
// --register-listing NAME FILE registers the text of FILE as the listing
// NAME (optrace_register_listing) before the ops; exits 4 if that fails.
// --names-capped N, after those, counts N names replaced at a cap
// (optrace_count_names_capped), as an instrumentation layer past its cap
// does; exits 3 if that fails.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
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
  bool fork_child = false;
  bool forever = false;
  const char* hold_open = nullptr;
  bool sleeps = false;
  bool uneven_threads = false;
  long steps = 0;
  long slow_step = 0;  // 1-based; 0 = none
  long slow_ms = 30;   // how long slow_only sleeps
  std::string step_api = "cxx";
  std::vector<std::pair<const char*, const char*>> tagged;  // name, tag
  struct At {
    const char* file;
    uint32_t line;
    const char* name;
  };
  std::vector<At> at;
  const char* listing_name = nullptr;
  const char* listing_file = nullptr;
  long rate = 0;  // ops per second per thread; 0 = back to back
  uint64_t names_capped = 0;
  long keep_at = -1;  // the iteration that keeps; -1 = none
  const char* keep_reason = "test";
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
    } else if (flag == "--uneven-threads") {
      a.uneven_threads = true;
    } else if (flag == "--steps") {
      a.steps = std::atol(next());
    } else if (flag == "--slow-step") {
      a.slow_step = std::atol(next());
    } else if (flag == "--slow-ms") {
      a.slow_ms = std::atol(next());
    } else if (flag == "--step-api") {
      a.step_api = next();
      if (a.step_api != "cxx" && a.step_api != "c" && a.step_api != "boundary") {
        std::fprintf(stderr, "--step-api must be cxx, c or boundary, not %s\n", a.step_api.c_str());
        std::exit(2);
      }
    } else if (flag == "--tagged") {
      const char* name = next();
      a.tagged.emplace_back(name, next());
    } else if (flag == "--names-capped") {
      a.names_capped = std::strtoull(next(), nullptr, 10);
    } else if (flag == "--keep-at") {
      a.keep_at = std::atol(next());
    } else if (flag == "--keep-reason") {
      a.keep_reason = next();
    } else if (flag == "--fork-child") {
      a.fork_child = true;
    } else if (flag == "--at") {
      const char* file = next();
      const auto line = static_cast<uint32_t>(std::strtoul(next(), nullptr, 10));
      a.at.push_back({file, line, next()});
    } else if (flag == "--register-listing") {
      a.listing_name = next();
      a.listing_file = next();
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

// Forks a child that outlives this process without tracing (as a server's
// worker or a data loader may), and prints its pid.
void ForkIdleChild() {
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child == 0) {
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
    while (true) ::pause();
  }
  std::printf("child=%d\n", static_cast<int>(child));
  std::fflush(stdout);
}

// An op of `site` that lasts at least `ms` ms (it sleeps that long), then
// runs `inside()` within it: a lower bound on its duration that the test
// knows, to compare with the daemon's statistics.
template <typename Inside>
void SleepOp(optrace::OpSite& site, int ms, Inside&& inside) {
  optrace::ScopedOp op(site);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  inside();
  g_launches.fetch_add(op.id() != 0);
}
void SleepOp(optrace::OpSite& site, int ms) {
  SleepOp(site, ms, [] {});
}

void RunSleeps() {
  static optrace::OpSite two("sleep_2ms");
  static optrace::OpSite five("sleep_5ms");
  for (int i = 0; i < 30; ++i) {
    if (i % 3 == 2) {
      SleepOp(five, 5);
    } else {
      SleepOp(two, 2);
    }
  }
}

// One thread of --uneven-threads: `busy` runs its ops back to back, the
// other sleeps outside them in between.
void RunUnevenThread(bool busy) {
  static optrace::OpSite busy_op("busy_op");
  static optrace::OpSite light_op("light_op");
  for (int i = 0; i < 5; ++i) {
    if (busy) {
      SleepOp(busy_op, 20);
    } else {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      SleepOp(light_op, 1);
    }
  }
}

// The body of step `number` (1-based) of --steps; step `slow_step` also
// sleeps `slow_ms` in slow_only.
void RunStepBody(long number, long slow_step, long slow_ms) {
  static optrace::OpSite load_batch("load_batch");
  static optrace::OpSite forward("forward");
  static optrace::OpSite matmul("matmul");
  static optrace::OpSite backward("backward");
  static optrace::OpSite slow_only("slow_only");
  SleepOp(load_batch, 1);
  SleepOp(forward, 3, [] { SleepOp(matmul, 2); });
  SleepOp(backward, 2);
  if (number == slow_step) SleepOp(slow_only, static_cast<int>(slow_ms));
}

void RunSteps(long steps, long slow_step, long slow_ms, const std::string& api) {
  for (long i = 1; i <= steps; ++i) {
    if (api == "cxx") {
      optrace::Step step;
      g_launches.fetch_add(step.id() != 0);
      RunStepBody(i, slow_step, slow_ms);
    } else if (api == "c") {
      const uint64_t step = optrace_step_begin();
      g_launches.fetch_add(step != 0);
      RunStepBody(i, slow_step, slow_ms);
      optrace_step_end(step);
    } else {
      optrace_step();
      g_launches.fetch_add(optrace_ops_enabled());
      RunStepBody(i, slow_step, slow_ms);
    }
  }
  if (api == "boundary") optrace_step_finish();
}

void RunOps(long ops, bool forever, long rate, long keep_at, const char* keep_reason) {
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
    if (i == keep_at) {
      const int rc = optrace_keep(keep_reason);
      std::printf("kept op=%llu rc=%d\n", static_cast<unsigned long long>(a.id()), rc);
      std::fflush(stdout);
    }
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

// One op per --at FILE LINE NAME, in order, on this thread.
void RunAt(const std::vector<Args::At>& at) {
  for (const Args::At& site : at) {
    optrace_op_desc desc{};
    optrace_intern(site.name, std::strlen(site.name), &desc.name_id);
    optrace_intern_location(site.file, site.line, &desc.srcloc_id);
    desc.target = OPTRACE_TARGET_CPU;
    const uint64_t id = optrace_op_begin(&desc, OPTRACE_OP_SCOPED);
    optrace_op_end(&desc, id, 0);
    g_launches.fetch_add(id != 0);
    std::printf("at op=%llu\n", static_cast<unsigned long long>(id));
  }
  std::fflush(stdout);
}

// The text of --register-listing's FILE, registered as its NAME.
int RegisterListingFile(const char* name, const char* file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return optrace_register_listing(name, text.data(), text.size());
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
  if (args.listing_name != nullptr) {
    if (const int rc = RegisterListingFile(args.listing_name, args.listing_file); rc != 0) {
      std::fprintf(stderr, "optrace_register_listing: %s\n", std::strerror(-rc));
      return 4;
    }
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
  if (args.uneven_threads) {
    threads.emplace_back(RunUnevenThread, true);
    threads.emplace_back(RunUnevenThread, false);
  }
  for (int t = 0; t < (args.uneven_threads ? 0 : args.threads); ++t) {
    if (args.sleeps) {
      threads.emplace_back(RunSleeps);
    } else if (args.steps > 0) {
      threads.emplace_back(RunSteps, args.steps, args.slow_step, args.slow_ms, args.step_api);
    } else {
      threads.emplace_back(RunOps, args.ops, args.forever, args.rate, args.keep_at,
                           args.keep_reason);
    }
  }
  for (auto& t : threads) t.join();
  RunTagged(args.tagged);
  RunAt(args.at);
  if (args.names_capped > 0) {
    const int rc = optrace_count_names_capped(args.names_capped);
    if (rc != 0) {
      std::fprintf(stderr, "optrace_count_names_capped: %s\n", std::strerror(-rc));
      return 3;
    }
  }
  if (args.fork_child) ForkIdleChild();
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
