// The fields of a span as it leaves the daemon in rows, written down once:
// their public names and order. The export's spans (CSV, SQLite) and the
// forwarder's ClickHouse rows both iterate VisitSpanFields, so a field
// added here reaches both; each writer renders the values its own way.
#ifndef OPTRACE_DAEMON_MODEL_SPAN_FIELDS_H_
#define OPTRACE_DAEMON_MODEL_SPAN_FIELDS_H_

#include <cstdint>

#include "model/span.h"

namespace optrace::daemon {

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

// A duration field: the stored nanoseconds and whether they were measured
// (KnownDuration, KnownDeviceDuration); `ns` is what the span holds either
// way.
struct MeasuredNs {
  uint64_t ns = 0;
  bool known = false;
};

// Calls visit(name, value) for each field of `span`, in row order. Values
// are the span's own unsigned and signed integers (exact width), DictText,
// TargetByte, MeasuredNs or SpanStatus. Thread rules: pure.
template <typename Visit>
void VisitSpanFields(const Span& span, Visit&& visit) {
  visit("op_id", span.op_id);
  visit("parent_op_id", span.parent_op_id);
  visit("name", DictText{span.name});
  visit("tag", DictText{span.tag});
  visit("source_location", DictText{span.srcloc});
  visit("target", TargetByte{span.target});
  visit("device", span.device);
  visit("stream", span.stream);
  visit("start_unix_ns", span.start_ns);
  visit("duration_ns", MeasuredNs{span.duration_ns, KnownDuration(span).has_value()});
  visit("device_duration_ns", MeasuredNs{span.device_ns, span.has_device_ns});
  visit("launch_thread", span.launch_tid);
  visit("complete_thread", span.complete_tid);
  visit("status", span.status);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_SPAN_FIELDS_H_
