// Step records as stored (schema version 14): each committed step's
// number, start and duration, kept apart from its spans so that a
// session's steps outlive the rolling window that trims those spans.
// StepRecordWriter writes them; readers load them with LoadStepRecords.
#ifndef OPTRACE_DAEMON_STORAGE_STEP_RECORDS_H_
#define OPTRACE_DAEMON_STORAGE_STEP_RECORDS_H_

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "storage/sqlite_statement.h"
#include "storage/step_span_names.h"

namespace optrace::daemon {

// The most step records a session keeps (about 26 bytes each on disk).
inline constexpr uint64_t kMaxStepRecordsPerSession = 1'000'000;

// One recorded step.
struct StepRecord {
  int64_t start_ns = 0;
  uint64_t number = 0;  // explicit: counted from 1 as they commit; profiler: the range's counter
  uint64_t duration_ns = 0;
  StepSpanKind source = StepSpanKind::kExplicit;

  bool operator==(const StepRecord&) const = default;
};

// A session's records, by start (ties by number), and how many its bound
// folded away before them.
struct SessionStepRecords {
  std::vector<StepRecord> records;
  uint64_t folded = 0;
};

// The statements LoadStepRecords reads with, prepared by the reader.
inline constexpr const char* kSelectStepRecordsSql =
    "SELECT start_ns, number, duration_ns, source FROM step_records WHERE session_id = ? "
    "ORDER BY start_ns, number";
inline constexpr const char* kSelectStepsFoldedSql =
    "SELECT folded FROM step_record_counts WHERE session_id = ?";

// The records of `session` (none for an unknown session or one stored
// before schema version 14). A row whose source is neither kind ends the
// read with kInvalidArgument naming it. Errors: SQLite's.
Result<SessionStepRecords> LoadStepRecords(SqliteStatement& select_records,
                                           SqliteStatement& select_folded, SessionId session);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_STEP_RECORDS_H_
