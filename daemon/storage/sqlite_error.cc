#include "storage/sqlite_error.h"

#include <string>

namespace optrace::daemon {

Status SqliteError(sqlite3* db, int rc, std::string_view operation) {
  const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  std::string message = (file != nullptr && *file != '\0') ? file : "sqlite";
  message += ": ";
  message += operation;
  message += ": ";
  // sqlite3_errmsg describes the most recent failure on `db`, which is the
  // one we are reporting; without a connection only the code is known.
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  message += " (" + std::string(sqlite3_errstr(rc)) + ", code " + std::to_string(rc) + ")";
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
      return Status::InvalidArgument(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(std::move(message));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return Status::PermissionDenied(std::move(message));
    case SQLITE_CANTOPEN:
      return Status::NotFound(std::move(message));
    default:
      return Status::IoError(std::move(message));
  }
}

}  // namespace optrace::daemon
