#include "storage/step_records.h"

#include <string>

namespace optrace::daemon {

Result<SessionStepRecords> LoadStepRecords(SqliteStatement& select_records,
                                           SqliteStatement& select_folded, SessionId session) {
  SessionStepRecords loaded;
  {
    ScopedStatementReset reset(select_records);
    select_records.BindUint64(1, session);
    while (true) {
      Result<bool> row = select_records.Step();
      if (!row.ok()) return row.status();
      if (!row.value()) break;
      const int64_t source_untrusted = select_records.ColumnInt64(3);
      if (source_untrusted != static_cast<int64_t>(StepSpanKind::kExplicit) &&
          source_untrusted != static_cast<int64_t>(StepSpanKind::kProfiler)) {
        return Status::InvalidArgument("step record of session " + std::to_string(session) +
                                       " at " + std::to_string(select_records.ColumnInt64(0)) +
                                       " has source " + std::to_string(source_untrusted) +
                                       ", neither explicit (1) nor profiler (2)");
      }
      loaded.records.push_back({.start_ns = select_records.ColumnInt64(0),
                                .number = select_records.ColumnUint64(1),
                                .duration_ns = select_records.ColumnUint64(2),
                                .source = static_cast<StepSpanKind>(source_untrusted)});
    }
  }
  ScopedStatementReset reset(select_folded);
  select_folded.BindUint64(1, session);
  Result<bool> row = select_folded.Step();
  if (!row.ok()) return row.status();
  if (row.value()) loaded.folded = select_folded.ColumnUint64(0);
  return loaded;
}

}  // namespace optrace::daemon
