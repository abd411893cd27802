// liboptrace: ops that were observed after they finished, with timestamps
// given by the caller instead of read at the call. For bridges that learn
// of an op only once it is over, e.g. a GPU kernel reported by a profiling
// API (CUPTI) with its device start and end times:
//
//   // on the launching thread, when the kernel is enqueued:
//   const uint64_t parent = optrace::CurrentOpId();
//   // later, on any thread, when its record arrives:
//   optrace::FinishedOp op;
//   op.name_id = optrace::Intern(kernel_name);
//   op.placement = optrace::Placement::Gpu(device, stream);
//   op.parent_op_id = parent;
//   op.launch_ts = ToEventClock(record.start);       // caller's conversion
//   op.complete_ts = ToEventClock(record.end);
//   op.device_duration_ns = record.end - record.start;
//   optrace::RecordFinishedOp(op);
//
// Everything else (levels, rings, drops) is as in optrace.hpp.
#ifndef OPTRACE_FINISHED_OP_HPP_
#define OPTRACE_FINISHED_OP_HPP_

#include <cstdint>

#include "optrace/export.h"
#include "optrace/optrace.hpp"

namespace optrace {

// Now, in the clock of event timestamps (the segment's clock: TSC ticks on
// x86-64, CLOCK_MONOTONIC nanoseconds elsewhere; the daemon converts). A
// caller that holds times from another clock samples both clocks together
// to map one onto the other. Thread-safe, no syscall on x86-64.
inline uint64_t EventClockNow() noexcept { return detail::Now(); }

// The innermost scoped op open on the calling thread (a ScopedOp, or an op
// begun with OPTRACE_OP_SCOPED), 0 when none: the op that work enqueued
// now belongs to. One TLS load.
inline uint64_t CurrentOpId() noexcept { return detail::tls_writer.current_op; }

// An op that already finished, described in full.
struct FinishedOp {
  uint32_t name_id = 0;    // from Intern; required
  uint32_t tag_id = 0;     // 0 = none
  uint32_t srcloc_id = 0;  // 0 = none
  Placement placement;
  uint64_t parent_op_id = 0;        // the op it ran for, 0 = none
  uint64_t launch_ts = 0;           // event clock (EventClockNow's domain)
  uint64_t complete_ts = 0;         // event clock, >= launch_ts
  uint64_t device_duration_ns = 0;  // device-measured duration, 0 = none
};

// Records `op` as a LAUNCH at op.launch_ts and a COMPLETE at
// op.complete_ts, both written to the calling thread's ring now, under a
// new op id. The ring then holds them out of time order with its other
// events, which the daemon accepts: it pairs halves by op id and converts
// each timestamp on its own.
// Returns the op id, or 0 when ops are filtered out by the live level or
// `op` is invalid (name_id 0, complete_ts before launch_ts, unknown
// target). Never blocks or throws; a full ring drops and counts the events
// as every other op does. Thread-safe.
OPTRACE_EXPORT uint64_t RecordFinishedOp(const FinishedOp& op) noexcept;

}  // namespace optrace

#endif  // OPTRACE_FINISHED_OP_HPP_
