// Keeps the database within its size and age bounds by deleting whole
// ended sessions, oldest first.
#ifndef OPTRACE_DAEMON_STORAGE_RETENTION_H_
#define OPTRACE_DAEMON_STORAGE_RETENTION_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

struct RetentionPolicy {
  uint64_t max_bytes = 0;  // main file + WAL; 0 = unbounded
  int64_t max_age_ns = 0;  // by session end time; 0 = unbounded

  bool enabled() const { return max_bytes > 0 || max_age_ns > 0; }
};

// Holds the prepared statements of retention.
// REQUIRES: `db` has the current schema and outlives this object.
// Thread rules: the thread that writes through `db` (the store's writer),
// between batches (no transaction open).
class Retention {
 public:
  static Result<std::unique_ptr<Retention>> Create(SqliteConnection& db, RetentionPolicy policy);

  // One pass. Deletes every ended (exited or crashed) session that ended
  // before `now_ns` - max_age_ns; then, while the database is above
  // max_bytes, the ended session that ended first (running sessions are
  // never deleted, so the bound can be exceeded when they hold everything).
  // A session goes with all its rows, each in one transaction; spans of it
  // that the forwarder has not sent are added to
  // forward_cursor.spans_lost_to_retention in the same transaction. After any
  // deletion, frees the pages (incremental_vacuum) and checkpoints the WAL
  // with truncation so that the files shrink. Returns the number of
  // sessions deleted; on an SQLite error, returns it (sessions deleted
  // before it stay deleted, the database stays consistent).
  Result<uint64_t> Enforce(int64_t now_ns);

 private:
  Retention(SqliteConnection& db, RetentionPolicy policy) : db_(db), policy_(policy) {}
  Status PrepareStatements();
  Result<std::vector<SessionId>> EndedBefore(int64_t cutoff_ns);
  Result<uint64_t> UsedBytes();
  Status DeleteSession(SessionId session);
  Status Compact();

  SqliteConnection& db_;
  const RetentionPolicy policy_;
  SqliteStatement select_ended_before_;
  SqliteStatement record_high_water_;
  SqliteStatement count_unforwarded_;
  std::vector<SqliteStatement> delete_rows_;  // one per table, each binding session_id
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_RETENTION_H_
