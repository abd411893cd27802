#include "storage/sqlite_transaction.h"

#include <utility>

namespace optrace::daemon {

Result<SqliteTransaction> SqliteTransaction::Begin(SqliteConnection& db, Kind kind) {
  Status begun = db.Exec(kind == Kind::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  if (!begun.ok()) return begun;
  return SqliteTransaction(db);
}

SqliteTransaction::SqliteTransaction(SqliteTransaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

SqliteTransaction::~SqliteTransaction() {
  // After SQLITE_FULL, SQLITE_IOERR and a few others SQLite may already have
  // rolled back; a ROLLBACK then would only fail. The rollback's own result
  // is not actionable: the connection is back in autocommit either way.
  if (db_ != nullptr && db_->InTransaction()) (void)db_->Exec("ROLLBACK");
}

Status SqliteTransaction::Commit() {
  Status committed = db_->Exec("COMMIT");
  if (committed.ok()) db_ = nullptr;
  return committed;
}

}  // namespace optrace::daemon
