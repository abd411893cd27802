// Which committed spans are steps, by name, as the store sees them commit:
// an optrace.step span (explicit steps: optrace_step_begin, optrace::Step,
// optrace.step()) or a PyTorch ProfilerStep# range, whose number is a
// counter of that name under it. Step detection (query/step_detection.h)
// names them the same; the store's step users (SlowStepKeeps,
// StepRecordWriter) match them by dictionary id, one compare per span.
#ifndef OPTRACE_DAEMON_STORAGE_STEP_SPAN_NAMES_H_
#define OPTRACE_DAEMON_STORAGE_STEP_SPAN_NAMES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "model/span.h"
#include "optrace/optrace.h"
#include "storage/known_string_ids.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// The names of steps' spans, as step detection has them.
inline constexpr std::string_view kStepSpanExplicitName = OPTRACE_STEP_NAME;
inline constexpr std::string_view kStepSpanProfilerName = "ProfilerStep#";

// What kind of step a span is. The values are v1::StepSource's
// (STEP_SOURCE_EXPLICIT, STEP_SOURCE_PROFILER), as step_records stores them.
enum class StepSpanKind : uint8_t { kExplicit = 1, kProfiler = 2 };

// Thread rules: a value type; Load reads through `db` on the caller's thread.
class StepSpanNames {
 public:
  // Learns the ids of the names when the stored dictionary of `db` has them
  // (a daemon restarted on the database). Errors: SQLite's.
  static Result<StepSpanNames> Load(SqliteConnection& db);

  // Learns the ids from a batch's dictionary additions.
  void Note(std::span<const std::pair<StringId, std::string>> strings) { ids_.Note(strings); }

  // False while neither name has an id: no committed span is a step yet.
  bool any() const { return explicit_id() != 0 || profiler_id() != 0; }

  // The kind of step `span` is; nullopt for a span that is none, or that
  // is not OK (a step without a known duration is no step).
  std::optional<StepSpanKind> KindOf(const Span& span) const {
    if (span.status != SpanStatus::kOk) return std::nullopt;
    if (span.name == explicit_id() && explicit_id() != 0) return StepSpanKind::kExplicit;
    if (span.name == profiler_id() && profiler_id() != 0) return StepSpanKind::kProfiler;
    return std::nullopt;
  }

  // The id of kStepSpanProfilerName (its ranges' number counters have it
  // too); 0 while unknown.
  StringId profiler_id() const { return ids_.id(1); }

 private:
  explicit StepSpanNames(KnownStringIds ids) : ids_(std::move(ids)) {}
  StringId explicit_id() const { return ids_.id(0); }

  KnownStringIds ids_;  // kStepSpanExplicitName, kStepSpanProfilerName
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_STEP_SPAN_NAMES_H_
