// Export: one stored session as Chrome trace-event JSON, a Perfetto trace,
// CSV of spans, or an SQLite database of plain rows, produced in chunks.
#ifndef OPTRACE_DAEMON_EXPORT_SESSION_EXPORT_H_
#define OPTRACE_DAEMON_EXPORT_SESSION_EXPORT_H_

#include <functional>
#include <string_view>

#include "common/status.h"
#include "export/export_sink.h"
#include "optrace/v1/optrace.pb.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// Writes session `request.session_id()` in `request.format()` to `sink`
// (formats: ChromeTraceWriter, PerfettoTraceWriter, CsvWriter,
// SqliteExportWriter), from one snapshot of the database: spans in stored
// order, then (JSON, Perfetto, SQLite) instants. With a range
// (start_unix_ns, end_unix_ns), only the spans that overlap it
// (SpanOverlaps; read as ForEachSpanOverlapping does) and the instants in
// it. `span_count` is called once, before the first chunk, with the number
// of spans that will be exported (for progress bars): from the session's
// op_aggregates, or for a range from a pass over its spans' times. Memory: one chunk plus the
// session's distinct strings; the SQLite format writes a temporary file first. REQUIRES: `reader`
// belongs to the calling thread and has no transaction (Snapshot) open: the export opens its own.
// Errors: kInvalidArgument for an unset or unknown format or a range that
// CheckTimeRange refuses (naming the field); kNotFound for an
// unknown session; kUnavailable when the sink refuses a chunk; the
// reader's, and for SQLite the temporary file's.
Status ExportSession(SpanReader& reader, const v1::ExportRequest& request,
                     const std::function<void(uint64_t)>& span_count, const ExportSink& sink);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_SESSION_EXPORT_H_
