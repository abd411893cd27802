// Halves of ops as the correlator tests feed them.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_CORRELATE_HALF_OPS_H_
#define OPTRACE_TESTS_UNIT_DAEMON_CORRELATE_HALF_OPS_H_

#include <cstdint>

#include "model/span.h"
#include "optrace/abi.h"

namespace optrace::daemon::testing {

inline constexpr auto kL = static_cast<uint8_t>(abi::EventKind::kLaunch);
inline constexpr auto kC = static_cast<uint8_t>(abi::EventKind::kComplete);

// A LAUNCH (kL) or COMPLETE (kC) of op `id` at `ts` (producer clock and
// wall time alike) on thread `tid`, under `parent`, named 7.
inline HalfOp Half(uint8_t kind, uint64_t id, uint64_t ts, uint32_t tid = 1, uint64_t parent = 0) {
  HalfOp h;
  h.kind = kind;
  h.op_id = id;
  h.parent_op_id = parent;
  h.raw_ts = ts;
  h.ts_ns = static_cast<int64_t>(ts);
  h.tid = tid;
  h.name = 7;
  return h;
}

}  // namespace optrace::daemon::testing

#endif  // OPTRACE_TESTS_UNIT_DAEMON_CORRELATE_HALF_OPS_H_
