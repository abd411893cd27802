// ExportSink: where an export's bytes go, a chunk at a time.
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_SINK_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_SINK_H_

#include <cstdint>
#include <functional>
#include <string_view>

namespace optrace::daemon {

// Receives the export in order, a chunk at a time (up to ~1 MiB), with the
// number of spans written so far. Returns false when the client is gone:
// the export stops and returns kUnavailable.
using ExportSink = std::function<bool(std::string_view bytes, uint64_t spans_done)>;

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_SINK_H_
