// Stores keeps: the one place a keep is recorded, whatever asked for it
// (KeepRange, a crash, a latency rule; a later trigger calls Record too).
#ifndef OPTRACE_DAEMON_STORAGE_KEEP_RECORDER_H_
#define OPTRACE_DAEMON_STORAGE_KEEP_RECORDER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "storage/keep_ranges.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// The keeps of one session by start, as `select_keeps` (prepared from
// kSelectKeepsSql) reads them; shared by the writer and the readers.
inline constexpr const char* kSelectKeepsSql =
    "SELECT first_ns, last_ns, reason, bytes, created_ns FROM keeps WHERE session_id = ? "
    "ORDER BY first_ns";
Result<std::vector<KeepRecord>> LoadKeeps(SqliteStatement& select_keeps, SessionId session);

// Holds the prepared statements of keeps.
// REQUIRES: `db` has the current schema and outlives this object.
// Thread rules: the thread that writes through `db` (the store's writer),
// between batches (no transaction open).
class KeepRecorder {
 public:
  static Result<std::unique_ptr<KeepRecorder>> Create(SqliteConnection& db, KeepBudget budget);

  // Records `request` at wall clock `now_ns`, in one transaction: resolves
  // a last_duration_ns against the session's newest stored span start
  // (a duration longer than the session keeps all of it), cuts the range
  // at that start + KeepBudget::max_ahead_ns,
  // merges it with the session's keeps it overlaps or touches (MergeKeep),
  // measures the merged range's page bytes, and stores it when the budgets
  // allow (CheckKeepBudget). Returns the stored (merged) keep. Errors:
  // kNotFound for an unknown session; kInvalidArgument for first_ns >
  // last_ns (after the cut), a negative duration, or a session without
  // stored spans; kResourceExhausted over a budget (nothing stored);
  // SQLite's.
  Result<KeepRecord> Record(const KeepRequest& request, int64_t now_ns);

 private:
  KeepRecorder(SqliteConnection& db, KeepBudget budget) : db_(db), budget_(budget) {}
  Status PrepareStatements();
  // The range `request` names, resolved; the reason and created_ns set.
  Result<KeepRecord> Resolve(const KeepRequest& request, int64_t now_ns);
  // The one integer a bound `statement` selects (0 without a row).
  Result<uint64_t> StepBytes(SqliteStatement& statement);

  SqliteConnection& db_;
  const KeepBudget budget_;
  SqliteStatement select_uid_;
  SqliteStatement select_newest_;
  SqliteStatement select_keeps_;
  SqliteStatement measure_;
  SqliteStatement uid_bytes_;
  SqliteStatement database_bytes_;
  SqliteStatement delete_keep_;
  SqliteStatement insert_keep_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_KEEP_RECORDER_H_
