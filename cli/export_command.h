// `optrace export SESSION --format chrome|perfetto|csv|sqlite -o FILE`: streams a
// session's export into FILE (through FILE.partial, renamed at the end, so
// FILE is never half-written), with a progress bar on a terminal (stderr),
// and says what was written and where to open it.
#ifndef OPTRACE_CLI_EXPORT_COMMAND_H_
#define OPTRACE_CLI_EXPORT_COMMAND_H_

#include <cstdint>
#include <string>

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
};

// Writes the export; returns the exit code: 1 when the session is unknown
// or the file cannot be written (nothing is left behind), 130 when
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
