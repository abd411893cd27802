// `optrace export SESSION --format chrome|perfetto|csv|sqlite -o FILE
// [--from T] [--to T]`: streams a session's export (or of the spans that
// overlap [--from, --to), times after the session's start) into FILE (through FILE.partial, renamed
// at the end, so FILE is never half-written), with a progress bar on a terminal (stderr), and says
// what was written and where to open it.
#ifndef OPTRACE_CLI_EXPORT_COMMAND_H_
#define OPTRACE_CLI_EXPORT_COMMAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// Exit code of an export stopped by Ctrl-C (128 + SIGINT, as shells do).
inline constexpr int kExitInterrupted = 130;

struct ExportOptions {
  uint64_t session_id = 0;
  v1::ExportFormat format = v1::EXPORT_FORMAT_CHROME_JSON;
  std::string output;  // the file to write
  // The range, after the session's start (as `optrace ops` shows START):
  // [from_ns, to_ns), to its end without --to. Neither: the whole session.
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
  bool from_given = false;
  bool to_given = false;
};

// The Export range of `options` for a session that started at
// `session_start_unix_ns`: {start_unix_ns, end_unix_ns}, both 0 for the
// whole session. Without --to the range runs to the end of time; without
// --from it starts at the session's start. Sums saturate.
std::pair<int64_t, int64_t> ExportRangeOf(const ExportOptions& options,
                                          int64_t session_start_unix_ns);

// The usage error of --to not after --from (or, alone, not after 0), if any.
std::optional<CliError> CheckExportRange(const ExportOptions& options);

// Writes the export; returns the exit code: 1 when the session is unknown,
// the daemon refuses the range, or the file cannot be written (nothing is left behind), 130 when
// interrupted.
int RunExport(Connection& connection, const ExportOptions& options);

// The final line: "wrote session 7 as Chrome trace JSON (1234 spans, 1.20
// MiB) to /abs/out.json; open it in https://ui.perfetto.dev or
// chrome://tracing" (CSV: no hint; SQLite: "open it with sqlite3 FILE").
std::string DescribeExport(uint64_t session_id, v1::ExportFormat format, uint64_t spans,
                           uint64_t bytes, const std::string& path);

// `optrace export`: its options, bound to ExportOptions it owns, and
// RunExport.
CommandSpec DescribeExportCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_EXPORT_COMMAND_H_
