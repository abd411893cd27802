// What the drain thread publishes to live tails: one fixed-size record per
// ingested half, instant or span, with the session's identity and daemon
// string ids only (no text, no allocation). Tails resolve and filter it on
// the serving side.
#ifndef OPTRACE_DAEMON_LIVE_LIVE_RECORD_H_
#define OPTRACE_DAEMON_LIVE_LIVE_RECORD_H_

#include <cstdint>
#include <type_traits>

#include "model/span.h"

namespace optrace::daemon {

enum class LiveRecordType : uint8_t { kHalf = 1, kInstant = 2, kSpan = 3 };

// Bits of LiveRecord::known: which measured values the record carries (a
// value that is not known is 0 and its bit is clear; 0 ns may be known).
inline constexpr uint8_t kLiveDurationKnown = 1;  // duration_ns: a COMPLETE whose LAUNCH was seen
inline constexpr uint8_t kLiveDeviceDurationKnown = 2;  // device_ns: measured by the producer

// Trivially copyable, a whole number of 64-bit words (BroadcastBuffer
// copies it word by word). Fields a type does not use are 0.
struct LiveRecord {
  SessionId session = 0;
  uint64_t op_id = 0;  // half, span
  uint64_t parent_op_id = 0;
  int64_t ts_ns = 0;         // half and instant: its time; span: its start
  uint64_t duration_ns = 0;  // COMPLETE half whose LAUNCH was seen, span (see `known`)
  uint64_t device_ns = 0;    // half, span (see `known`)
  uint64_t children_ns = 0;  // span: its children's time on its thread (Span::children_ns)
  int64_t value = 0;         // counter instants
  StringId name = 0;
  StringId tag = 0;
  StringId srcloc = 0;  // half, span
  uint32_t label = 0;   // the session's label, an id of TailHub's label table
  uint32_t pid = 0;
  uint32_t uid = 0;
  uint32_t tid = 0;           // half, instant; span: the LAUNCH's thread
  uint32_t complete_tid = 0;  // span
  uint32_t stream = 0;        // half, span
  uint16_t device = 0;        // half, span
  LiveRecordType type = LiveRecordType::kHalf;
  uint8_t kind = 0;    // half, instant: abi::EventKind; span: SpanStatus
  uint8_t target = 0;  // half, span: abi::TargetKind
  uint8_t level = 0;   // instant: its level
  uint8_t known = 0;   // half: kLiveDurationKnown | kLiveDeviceDurationKnown; span: the latter
  uint8_t reserved[5] = {};
};
static_assert(std::is_trivially_copyable_v<LiveRecord>);
static_assert(sizeof(LiveRecord) == 112 && sizeof(LiveRecord) % sizeof(uint64_t) == 0);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_LIVE_RECORD_H_
