// ExportWriter: one export format, fed a session's records in order.
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_WRITER_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_WRITER_H_

#include "common/status.h"
#include "model/session_record.h"
#include "model/span.h"

namespace optrace::daemon {

// The export's driver calls Begin once, then AddSpan for every span (in
// stored order), AddInstant for every instant (in time order), then Finish
// once. A writer appends its bytes to the ExportBuffer it was made with
// (the driver sends them); an error ends the export.
// Thread rules: one thread at a time.
class ExportWriter {
 public:
  virtual ~ExportWriter() = default;
  virtual Status Begin(const SessionRecord& session) = 0;
  virtual Status AddSpan(const Span& span) = 0;
  virtual Status AddInstant(const Instant& instant) = 0;
  virtual Status Finish() = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_WRITER_H_
