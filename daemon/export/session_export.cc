#include "export/session_export.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "export/chrome_trace_writer.h"
#include "export/csv_writer.h"
#include "export/export_buffer.h"
#include "export/export_writer.h"
#include "export/perfetto_trace_writer.h"
#include "export/sqlite_export_writer.h"
#include "storage/span_time_range.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

constexpr int64_t kMinNs = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxNs = std::numeric_limits<int64_t>::max();

// What the stored op_aggregates say about a session's spans.
struct SpanCounts {
  uint64_t all = 0;
  uint64_t not_ok = 0;  // incomplete, complete-without-launch, duplicate
};

Result<SpanCounts> CountSpans(SpanReader& reader, SessionId session) {
  Result<std::vector<OpAggregateRow>> rows = reader.Aggregates(session);
  if (!rows.ok()) return rows.status();
  SpanCounts counts;
  for (const OpAggregateRow& row : rows.value()) {
    counts.all += row.totals.count;
    counts.not_ok += row.totals.count - std::min(row.totals.ok_count, row.totals.count);
  }
  return counts;
}

// The same counts for the spans that overlap `range`: one pass over them,
// reading only the columns that place them.
Result<SpanCounts> CountSpansIn(SpanReader& reader, SessionId session, const SpanTimeRange& range,
                                uint64_t longest) {
  SpanCounts counts;
  Status read = ForEachSpanOverlapping(
      reader, session, range, longest,
      [&](const Span& span) {
        ++counts.all;
        if (span.status != SpanStatus::kOk) ++counts.not_ok;
        return true;
      },
      kTimeRangeColumns);
  if (!read.ok()) return read;
  return counts;
}

// What one export covers: the whole session, or the spans that overlap a
// range (read from `longest` before it) and the instants in it.
struct ExportScope {
  std::optional<SpanTimeRange> range;
  uint64_t longest = 0;

  bool HasInstant(const Instant& instant) const {
    return !range || (instant.ts_ns >= range->start_ns && instant.ts_ns < range->end_ns);
  }
  // Whether no later instant (they come in time order) is in scope.
  bool PastInstants(const Instant& instant) const {
    return range && instant.ts_ns >= range->end_ns;
  }
};

// The scope of `request` (whose range CheckTimeRange accepted), with the
// counts of its spans.
Result<ExportScope> ScopeOf(SpanReader& reader, const v1::ExportRequest& request,
                            SpanCounts* counts) {
  ExportScope scope;
  const SessionId session = request.session_id();
  if (request.start_unix_ns() == 0 && request.end_unix_ns() == 0) {
    Result<SpanCounts> all = CountSpans(reader, session);
    if (!all.ok()) return all.status();
    *counts = all.value();
    return scope;
  }
  scope.range = SpanTimeRange{.start_ns = request.start_unix_ns(), .end_ns = request.end_unix_ns()};
  Result<uint64_t> longest = LongestDuration(reader, session);
  if (!longest.ok()) return longest.status();
  scope.longest = longest.value();
  Result<SpanCounts> in_range = CountSpansIn(reader, session, *scope.range, scope.longest);
  if (!in_range.ok()) return in_range.status();
  *counts = in_range.value();
  return scope;
}

// Visits the spans of `scope`, in stored order, until `visit` returns false.
Status ForEachSpanIn(SpanReader& reader, SessionId session, const ExportScope& scope,
                     const SpanReader::SpanVisitor& visit) {
  if (!scope.range) return reader.ForEachSpan(session, kMinNs, kMaxNs, visit);
  return ForEachSpanOverlapping(reader, session, *scope.range, scope.longest, visit);
}

// Where the session's last span ends (its start plus its duration,
// saturating), for the incomplete spans of a session without an end time.
// kMinNs when it has no span. One pass over the spans.
Result<int64_t> LastSpanEnd(SpanReader& reader, SessionId session) {
  int64_t last = kMinNs;
  Status scanned = reader.ForEachSpan(session, kMinNs, kMaxNs, [&](const Span& span) {
    const uint64_t room = static_cast<uint64_t>(kMaxNs) - static_cast<uint64_t>(span.start_ns);
    const int64_t end =
        span.duration_ns >= room
            ? kMaxNs
            : static_cast<int64_t>(static_cast<uint64_t>(span.start_ns) + span.duration_ns);
    last = std::max(last, end);
    return true;
  });
  if (!scanned.ok()) return scanned;
  return last;
}

// Where the timeline formats draw the end of incomplete spans: the
// session's end, or for a session without one its last span's end (one
// pass, only when it has spans that are not OK).
Result<int64_t> IncompleteEnd(SpanReader& reader, const SessionRecord& record,
                              const SpanCounts& counts) {
  if (record.end_ns != 0 || counts.not_ok == 0) return record.end_ns;
  return LastSpanEnd(reader, record.id);
}

// The writer of `format`, for session `record`.
Result<std::unique_ptr<ExportWriter>> MakeWriter(SpanReader& reader, v1::ExportFormat format,
                                                 const SessionRecord& record,
                                                 const SpanCounts& counts, StringCache& strings,
                                                 ExportBuffer& buffer) {
  switch (format) {
    case v1::EXPORT_FORMAT_CHROME_JSON: {
      Result<int64_t> incomplete_end = IncompleteEnd(reader, record, counts);
      if (!incomplete_end.ok()) return incomplete_end.status();
      return std::unique_ptr<ExportWriter>(
          std::make_unique<ChromeTraceWriter>(strings, buffer, incomplete_end.value()));
    }
    case v1::EXPORT_FORMAT_PERFETTO: {
      Result<int64_t> incomplete_end = IncompleteEnd(reader, record, counts);
      if (!incomplete_end.ok()) return incomplete_end.status();
      return std::unique_ptr<ExportWriter>(
          std::make_unique<PerfettoTraceWriter>(strings, buffer, incomplete_end.value()));
    }
    case v1::EXPORT_FORMAT_CSV:
      return std::unique_ptr<ExportWriter>(std::make_unique<CsvWriter>(strings, buffer));
    case v1::EXPORT_FORMAT_SQLITE: {
      Result<std::unique_ptr<SqliteExportWriter>> writer =
          SqliteExportWriter::Create(strings, buffer);
      if (!writer.ok()) return writer.status();
      return std::unique_ptr<ExportWriter>(std::move(writer).value());
    }
    default:
      return Status::InvalidArgument(
          "format " + std::to_string(format) +
          " is not a known ExportFormat (CHROME_JSON, CSV, SQLITE or PERFETTO)");
  }
}

}  // namespace

Status ExportSession(SpanReader& reader, const v1::ExportRequest& request,
                     const std::function<void(uint64_t)>& span_count, const ExportSink& sink) {
  if (request.format() == v1::EXPORT_FORMAT_UNSPECIFIED) {
    return Status::InvalidArgument(
        "format is not set: ask for CHROME_JSON, CSV, SQLITE or PERFETTO");
  }
  if (Status st = CheckTimeRange(request.start_unix_ns(), request.end_unix_ns()); !st.ok()) {
    return st;
  }
  const SessionId id = request.session_id();
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  Result<std::optional<SessionRecord>> found = reader.GetSession(id);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return Status::NotFound("session " + std::to_string(id) + " not found");
  const SessionRecord& record = found->value();
  SpanReader::ScratchScope scratch(reader);
  SpanCounts counts;
  Result<ExportScope> scope = ScopeOf(reader, request, &counts);
  if (!scope.ok()) return scope.status();

  StringCache strings(reader);
  ExportBuffer buffer(sink);
  Result<std::unique_ptr<ExportWriter>> made =
      MakeWriter(reader, request.format(), record, counts, strings, buffer);
  if (!made.ok()) return made.status();
  ExportWriter& writer = *made.value();

  span_count(counts.all);
  Status status = writer.Begin(record);
  if (!status.ok()) return status;
  // Each record may fail (SQLite), may have failed to resolve a string, or
  // may fill a chunk that the client no longer takes: any of them ends the
  // export with that status.
  const auto after_record = [&](const Status& written) {
    status = written;
    if (status.ok()) status = strings.status();
    if (status.ok()) status = buffer.SendIfFull();
    return status.ok();
  };
  uint64_t spans_done = 0;
  Status read = ForEachSpanIn(reader, id, scope.value(), [&](const Span& span) {
    buffer.set_spans_done(++spans_done);
    return after_record(writer.AddSpan(span));
  });
  if (!read.ok()) return read;
  if (!status.ok()) return status;
  read = reader.ForEachInstant(id, [&](const Instant& instant) {
    if (scope->PastInstants(instant)) return false;
    return !scope->HasInstant(instant) || after_record(writer.AddInstant(instant));
  });
  if (!read.ok()) return read;
  if (!status.ok()) return status;
  status = writer.Finish();
  if (!status.ok()) return status;
  return buffer.Send();
}

}  // namespace optrace::daemon
