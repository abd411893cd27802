// What the daemon stores: spans (paired ops), instants (marks and
// counters), unpaired halves of ops, and the per-session record.
#ifndef OPTRACE_DAEMON_MODEL_SPAN_H_
#define OPTRACE_DAEMON_MODEL_SPAN_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace optrace::daemon {

// Ids of the daemon's string dictionary (shared by all sessions; 0 = none).
using StringId = uint32_t;
// Daemon-assigned session id, unique in one database, never reused.
using SessionId = uint64_t;

// How a span came to be.
enum class SpanStatus : uint8_t {
  kOk = 0,                     // LAUNCH and COMPLETE paired
  kIncomplete = 1,             // LAUNCH whose process ended before COMPLETE
  kCompleteWithoutLaunch = 2,  // COMPLETE whose LAUNCH never arrived
  kDuplicate = 3,              // a second LAUNCH or COMPLETE for an open id
};

std::string_view SpanStatusName(SpanStatus status);  // "ok", "incomplete", ...

// One op. Times are CLOCK_REALTIME nanoseconds; durations come from the
// producer's own clock (precise), not from subtracting wall times.
struct Span {
  uint64_t op_id = 0;
  uint64_t parent_op_id = 0;
  int64_t start_ns = 0;      // LAUNCH (COMPLETE for kCompleteWithoutLaunch)
  uint64_t duration_ns = 0;  // LAUNCH to COMPLETE; 0 unless kOk
  uint64_t device_ns = 0;    // device-measured duration when has_device_ns, else 0
  StringId name = 0;
  StringId tag = 0;
  StringId srcloc = 0;
  uint32_t launch_tid = 0;    // 0 when there was no LAUNCH
  uint32_t complete_tid = 0;  // 0 when there was no COMPLETE
  uint32_t stream = 0;
  uint16_t device = 0;
  uint8_t target = 0;  // abi::TargetKind
  SpanStatus status = SpanStatus::kOk;
  bool has_device_ns = false;  // the COMPLETE carried a device duration (0 ns included)
};

// The span's duration when it is known (LAUNCH and COMPLETE paired, 0 ns
// included); nullopt otherwise.
inline std::optional<uint64_t> KnownDuration(const Span& span) {
  if (span.status != SpanStatus::kOk) return std::nullopt;
  return span.duration_ns;
}

// The device-measured duration when the producer measured one (0 ns
// included); nullopt otherwise.
inline std::optional<uint64_t> KnownDeviceDuration(const Span& span) {
  if (!span.has_device_ns) return std::nullopt;
  return span.device_ns;
}

// A mark or a counter sample.
struct Instant {
  int64_t ts_ns = 0;  // CLOCK_REALTIME
  uint64_t parent_op_id = 0;
  int64_t value = 0;  // counters only
  StringId name = 0;
  StringId tag = 0;
  uint32_t tid = 0;
  uint8_t kind = 0;  // abi::EventKind::kMark or kCounter
  uint8_t level = 0;
};

// One half of an op still waiting for its other half, as persisted so that
// a restarted daemon can pair it (see StoreBatch).
struct HalfOp {
  uint64_t op_id = 0;
  uint8_t kind = 0;     // abi::EventKind::kLaunch or kComplete
  int64_t ts_ns = 0;    // CLOCK_REALTIME of this half
  uint64_t raw_ts = 0;  // producer clock, for precise durations
  uint64_t parent_op_id = 0;
  uint64_t device_ns = 0;  // COMPLETE: device duration when has_device_ns
  StringId name = 0;
  StringId tag = 0;
  StringId srcloc = 0;
  uint32_t tid = 0;
  uint32_t stream = 0;
  uint16_t device = 0;
  uint8_t target = 0;
  bool has_device_ns = false;  // COMPLETE flagged abi::kFlagDeviceDuration
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_SPAN_H_
