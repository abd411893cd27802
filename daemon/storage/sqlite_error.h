// Turning an SQLite result code into a Status that names the database, the
// operation and the cause.
#ifndef OPTRACE_DAEMON_STORAGE_SQLITE_ERROR_H_
#define OPTRACE_DAEMON_STORAGE_SQLITE_ERROR_H_

#include <sqlite3.h>

#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// Returns the Status for result code `rc` (not SQLITE_OK, SQLITE_ROW or
// SQLITE_DONE) of `operation` on connection `db` (may be null when the
// connection could not be opened). The message reads
// "<db file>: <operation>: <sqlite message> (<code name>)".
// The Status code tells a caller whether trying again can help:
//   kInvalidArgument   the data broke a rule of the schema (constraint,
//                      type mismatch, too big): the same write fails again;
//   kUnavailable       locked or busy: another connection holds a lock;
//   kPermissionDenied  read-only file or folder;
//   kNotFound          the file cannot be opened;
//   kIoError           anything else (disk full, I/O error, corruption...).
Status SqliteError(sqlite3* db, int rc, std::string_view operation);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SQLITE_ERROR_H_
