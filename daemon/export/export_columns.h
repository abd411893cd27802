// The plain-row columns of an export, written down once: the CSV header
// and rows, and the SQLite export's tables, come from these visitors (a
// span's fields from model/span.h, which the forwarder shares).
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_COLUMNS_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_COLUMNS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "common/level_names.h"
#include "common/op_line.h"
#include "model/session_record.h"
#include "model/span.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// Calls visit(column name, value) for each column of an exported span, in
// order: session_id, then the span's fields (VisitSpanFields). Values are
// uint64_t, int64_t, std::optional<uint64_t> (a measured duration; nullopt
// when unknown), DictText or std::string_view (a fixed word: target,
// status).
template <typename Visit>
void VisitSpanColumns(SessionId session, const Span& span, Visit&& visit) {
  visit("session_id", uint64_t{session});
  VisitSpanFields(span, [&](std::string_view name, const auto& value) {
    using Value = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<Value, TargetByte>) {
      visit(name, TargetKindName(static_cast<abi::TargetKind>(value.kind)));
    } else if constexpr (std::is_same_v<Value, SpanStatus>) {
      visit(name, SpanStatusName(value));
    } else if constexpr (std::is_same_v<Value, MeasuredNs>) {
      visit(name, value.known ? std::optional<uint64_t>(value.ns) : std::nullopt);
    } else if constexpr (std::is_same_v<Value, DictText>) {
      visit(name, value);
    } else if constexpr (std::is_signed_v<Value>) {
      visit(name, int64_t{value});
    } else {
      visit(name, uint64_t{value});
    }
  });
}

// "mark" or "counter" (anything else: "unknown").
inline std::string_view InstantKindName(uint8_t kind) {
  switch (static_cast<abi::EventKind>(kind)) {
    case abi::EventKind::kMark:
      return "mark";
    case abi::EventKind::kCounter:
      return "counter";
    default:
      return "unknown";
  }
}

// The same, for an exported instant (a mark or a counter sample).
template <typename Visit>
void VisitInstantColumns(SessionId session, const Instant& instant, Visit&& visit) {
  visit("session_id", uint64_t{session});
  visit("ts_unix_ns", instant.ts_ns);
  visit("kind", InstantKindName(instant.kind));
  visit("name", DictText{instant.name});
  visit("tag", DictText{instant.tag});
  visit("value", instant.value);
  visit("thread", uint64_t{instant.tid});
  visit("parent_op_id", instant.parent_op_id);
  visit("level", LevelName(static_cast<abi::LevelValue>(instant.level)));
}

// The same, for the exported session (the texts are the record's own, as
// std::string_view).
template <typename Visit>
void VisitSessionColumns(const SessionRecord& r, Visit&& visit) {
  visit("id", uint64_t{r.id});
  visit("label", std::string_view(r.label));
  visit("pid", uint64_t{r.pid});
  visit("uid", uint64_t{r.uid});
  visit("executable", std::string_view(r.executable));
  visit("command_line", std::string_view(r.command_line));
  visit("start_unix_ns", r.start_ns);
  visit("end_unix_ns", r.end_ns);
  visit("state", SessionStateName(r.state));
  visit("events", r.events);
  visit("spans", r.spans);
  visit("instants", r.instants);
  visit("open_ops", r.open_ops);
  visit("dropped_ring_full", r.dropped_ring_full);
  visit("dropped_no_ring", r.dropped_no_ring);
  visit("dropped_shed", r.dropped_shed);
  visit("dropped_daemon_restart", r.dropped_daemon_restart);
  visit("dropped_invalid", r.dropped_invalid);
  visit("strings_dropped", r.strings_dropped);
  visit("names_capped", r.names_capped);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_COLUMNS_H_
