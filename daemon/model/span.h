// What the daemon stores: spans (paired ops) and their fields in row
// order, instants (marks and counters) and unpaired halves of ops.
#ifndef OPTRACE_DAEMON_MODEL_SPAN_H_
#define OPTRACE_DAEMON_MODEL_SPAN_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

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
  // The time of its children on its own thread, subtracted from
  // duration_ns for its self time (SelfNs; SpanCorrelator computes it).
  // 0 for a span without children and for spans stored before self time.
  uint64_t children_ns = 0;
  uint64_t device_ns = 0;  // device-measured duration when has_device_ns, else 0
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

// The span's self time: its duration less its children's time, never
// below 0 (children_ns is data read back from storage). 0 unless kOk.
inline uint64_t SelfNs(const Span& span) {
  if (span.status != SpanStatus::kOk) return 0;
  return span.duration_ns - std::min(span.children_ns, span.duration_ns);
}

// The device-measured duration when the producer measured one (0 ns
// included); nullopt otherwise.
inline std::optional<uint64_t> KnownDeviceDuration(const Span& span) {
  if (!span.has_device_ns) return std::nullopt;
  return span.device_ns;
}

// The fields of a span as it leaves the daemon in rows, written down once:
// their public names and order. The export's spans (CSV, SQLite), the
// forwarder's ClickHouse rows and the fleet's reading of those rows all
// iterate this list, so a field added here reaches each; each renders the
// values its own way.

// How a row field's value is read from its member.
enum class SpanFieldKind {
  kValue,           // the member's own integer (exact width) or SpanStatus
  kDictText,        // a StringId of the dictionary: its text
  kTarget,          // the stored abi::TargetKind byte, named or numbered
  kDuration,        // duration_ns: measured when KnownDuration
  kDeviceDuration,  // device_ns: measured when has_device_ns
  kSelfDuration,    // children_ns: the row holds SelfNs, known when KnownDuration
};
template <SpanFieldKind kind>
using SpanFieldAs = std::integral_constant<SpanFieldKind, kind>;

// Calls visit(name, SpanFieldAs<kind>{}, member) for each row field, in row
// order; `member` points to the Span member that holds the value.
// Thread rules: pure.
template <typename Visit>
void ForEachSpanField(Visit&& visit) {
  using enum SpanFieldKind;
  visit("op_id", SpanFieldAs<kValue>{}, &Span::op_id);
  visit("parent_op_id", SpanFieldAs<kValue>{}, &Span::parent_op_id);
  visit("name", SpanFieldAs<kDictText>{}, &Span::name);
  visit("tag", SpanFieldAs<kDictText>{}, &Span::tag);
  visit("source_location", SpanFieldAs<kDictText>{}, &Span::srcloc);
  visit("target", SpanFieldAs<kTarget>{}, &Span::target);
  visit("device", SpanFieldAs<kValue>{}, &Span::device);
  visit("stream", SpanFieldAs<kValue>{}, &Span::stream);
  visit("start_unix_ns", SpanFieldAs<kValue>{}, &Span::start_ns);
  visit("duration_ns", SpanFieldAs<kDuration>{}, &Span::duration_ns);
  visit("device_duration_ns", SpanFieldAs<kDeviceDuration>{}, &Span::device_ns);
  visit("launch_thread", SpanFieldAs<kValue>{}, &Span::launch_tid);
  visit("complete_thread", SpanFieldAs<kValue>{}, &Span::complete_tid);
  visit("status", SpanFieldAs<kValue>{}, &Span::status);
  // Last, so that the columns rows had before self time keep their places.
  visit("self_ns", SpanFieldAs<kSelfDuration>{}, &Span::children_ns);
}

// A field whose value is a dictionary string: each writer resolves it the
// way it needs (raw text, an escaped CSV field).
struct DictText {
  StringId id = 0;
};

// The target field: the stored abi::TargetKind byte, which each writer
// names or numbers.
struct TargetByte {
  uint8_t kind = 0;
};

// A duration field: the nanoseconds and whether they were measured
// (KnownDuration, KnownDeviceDuration); `ns` is what the span holds either
// way (for self_ns, SelfNs: 0 unless the duration is known).
struct MeasuredNs {
  uint64_t ns = 0;
  bool known = false;
};

// Calls visit(name, value) for each row field of `span`, in row order
// (ForEachSpanField's). Values are the span's own integers (exact width)
// and SpanStatus, DictText, TargetByte or MeasuredNs. Thread rules: pure.
template <typename Visit>
void VisitSpanFields(const Span& span, Visit&& visit) {
  ForEachSpanField([&](const char* name, auto kind, auto member) {
    const auto& value = span.*member;
    constexpr SpanFieldKind how = decltype(kind)::value;
    if constexpr (how == SpanFieldKind::kDictText) {
      visit(name, DictText{value});
    } else if constexpr (how == SpanFieldKind::kTarget) {
      visit(name, TargetByte{value});
    } else if constexpr (how == SpanFieldKind::kDuration) {
      visit(name, MeasuredNs{value, KnownDuration(span).has_value()});
    } else if constexpr (how == SpanFieldKind::kDeviceDuration) {
      visit(name, MeasuredNs{value, span.has_device_ns});
    } else if constexpr (how == SpanFieldKind::kSelfDuration) {
      visit(name, MeasuredNs{SelfNs(span), KnownDuration(span).has_value()});
    } else {
      visit(name, value);
    }
  });
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
