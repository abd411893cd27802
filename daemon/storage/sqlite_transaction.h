// An explicit SQLite transaction that rolls back unless committed.
#ifndef OPTRACE_DAEMON_STORAGE_SQLITE_TRANSACTION_H_
#define OPTRACE_DAEMON_STORAGE_SQLITE_TRANSACTION_H_

#include "common/status.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// Scope of one transaction on a borrowed connection (which must outlive
// it). Move-only. Destroying it uncommitted rolls back (if SQLite has not
// already rolled back by itself after an error), so every early return of
// a writer leaves the database as it was.
class SqliteTransaction {
 public:
  enum class Kind {
    kDeferred,   // takes locks when first needed: for reads
    kImmediate,  // takes the write lock now: for writes
  };

  // Begins a transaction; kUnavailable when another connection holds the
  // write lock past the busy timeout.
  static Result<SqliteTransaction> Begin(SqliteConnection& db, Kind kind);

  ~SqliteTransaction();
  SqliteTransaction(SqliteTransaction&& other) noexcept;
  SqliteTransaction& operator=(SqliteTransaction&&) = delete;
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;

  // Commits. On failure the destructor rolls back what is left.
  Status Commit();

 private:
  explicit SqliteTransaction(SqliteConnection& db) : db_(&db) {}

  SqliteConnection* db_;  // null once committed or moved from
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SQLITE_TRANSACTION_H_
