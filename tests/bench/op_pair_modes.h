// The op pair the benchmark programs record (bench_side_by_side,
// bench_burst_producer): a LAUNCH + COMPLETE with the same name, op id,
// target and device, through optrace and, when built with LTTng-UST
// (OPTRACE_BENCH_HAVE_LTTNG, with lttng_op_tp.c in the program), through its
// tracepoints. Each mode's `static uint64_t Pair(uint64_t id)` records op
// `id` its way on the calling thread and returns 1 when the pair was
// recorded, 0 when the mode filtered it out.
#ifndef OPTRACE_TESTS_BENCH_OP_PAIR_MODES_H_
#define OPTRACE_TESTS_BENCH_OP_PAIR_MODES_H_

#include <cstdint>

#include "optrace/optrace.hpp"

#ifdef OPTRACE_BENCH_HAVE_LTTNG
#include "lttng_op_tp.h"
#endif

namespace optrace::bench {

// The op every mode records: the same name, target and device.
inline constexpr const char* kOpName = "elementwise";
inline constexpr const char* kTargetName = "cpu";
inline constexpr int kDevice = 0;

// Keeps `value` alive without letting the compiler reason about it.
inline void Keep(uint64_t value) { asm volatile("" : : "r"(value) : "memory"); }

inline optrace::OpSite g_op_site(kOpName);

struct OptraceMode {
  // The op id is optrace's own (0 when the live level filters it out).
  static uint64_t Pair(uint64_t) {
    optrace::ScopedOp op(g_op_site, optrace::Placement::Cpu(kDevice));
    Keep(op.id());
    return op.id() != 0;
  }
};

#ifdef OPTRACE_BENCH_HAVE_LTTNG
struct LttngMode {
  static uint64_t Pair(uint64_t id) {
    lttng_ust_tracepoint(optrace_bench, launch, kOpName, id, kTargetName, kDevice);
    lttng_ust_tracepoint(optrace_bench, complete, kOpName, id, kTargetName, kDevice);
    return 1;
  }
};
#endif

}  // namespace optrace::bench

#endif  // OPTRACE_TESTS_BENCH_OP_PAIR_MODES_H_
