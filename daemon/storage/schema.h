// The database schema and its forward migrations.
#ifndef OPTRACE_DAEMON_STORAGE_SCHEMA_H_
#define OPTRACE_DAEMON_STORAGE_SCHEMA_H_

#include <cstdint>

#include "common/status.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// The schema version this build writes and reads. Stored in
// meta(key = 'schema_version').
inline constexpr int64_t kSchemaVersion = 14;

// meta key of the highest session id ever stored, kept when retention
// deletes sessions so that a restarted daemon never reuses an id.
inline constexpr const char* kSessionIdHighWaterKey = "session_id_high_water";

// Brings the database behind `db` (read-write) to kSchemaVersion: on a new
// file, sets auto_vacuum=INCREMENTAL (only possible before the first table)
// and creates everything; on an older one, applies each missing migration
// in order, all in one transaction. Also switches the file to WAL mode
// (a property of the file, unlike per-connection settings). Errors: kInvalidArgument when the
// file's schema is newer than this build or has no version while holding tables; SQLite errors
// otherwise (see SqliteError).
Status PrepareSchema(SqliteConnection& db);

// Reads the stored schema version (0 for a database without a meta table)
// and fails with kInvalidArgument unless it is kSchemaVersion. For
// read-only connections, which never migrate.
Status CheckSchemaVersion(SqliteConnection& db);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SCHEMA_H_
