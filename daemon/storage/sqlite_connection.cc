#include "storage/sqlite_connection.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "storage/sqlite_error.h"

namespace optrace::daemon {

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                 SqliteOpenMode mode,
                                                                 int busy_timeout_ms) {
  const int flags = SQLITE_OPEN_NOMUTEX | (mode == SqliteOpenMode::kReadOnly
                                               ? SQLITE_OPEN_READONLY
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status error = SqliteError(db, rc, "opening " + path);
    sqlite3_close_v2(db);  // a handle is returned even on failure
    return error;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<SqliteConnection>(new SqliteConnection(db, path, busy_timeout_ms));
}

SqliteConnection::~SqliteConnection() { sqlite3_close_v2(db_); }

Status SqliteConnection::Exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, sql);
  return Status::Ok();
}

Result<SqliteStatement> SqliteConnection::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, "preparing " + std::string(sql));
  return SqliteStatement(db_, stmt);
}

Result<int64_t> SqliteConnection::QueryInt64(std::string_view sql) {
  Result<SqliteStatement> statement = Prepare(sql);
  if (!statement.ok()) return statement.status();
  Result<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return Status::NotFound(path_ + ": " + std::string(sql) + " returned no row");
  return statement->ColumnInt64(0);
}

Result<std::string> SqliteConnection::QueryText(std::string_view sql) {
  Result<SqliteStatement> statement = Prepare(sql);
  if (!statement.ok()) return statement.status();
  Result<bool> row = statement->Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return Status::NotFound(path_ + ": " + std::string(sql) + " returned no row");
  return std::string(statement->ColumnText(0));
}

Result<uint64_t> SqliteConnection::BytesOnDisk() {
  Result<int64_t> page_count = QueryInt64("PRAGMA page_count");
  if (!page_count.ok()) return page_count.status();
  Result<int64_t> page_size = QueryInt64("PRAGMA page_size");
  if (!page_size.ok()) return page_size.status();
  uint64_t bytes =
      static_cast<uint64_t>(page_count.value()) * static_cast<uint64_t>(page_size.value());
  const char* wal = sqlite3_filename_wal(sqlite3_db_filename(db_, "main"));
  struct stat st;
  if (wal != nullptr && ::stat(wal, &st) == 0) {
    bytes += static_cast<uint64_t>(st.st_size);
  } else if (wal != nullptr && errno != ENOENT) {
    return Status::IoError(std::string(wal) + ": stat: " + std::strerror(errno));
  }
  return bytes;
}

Status SqliteConnection::CheckpointTruncate(int wait_ms) {
  // The busy handler is what TRUNCATE waits with; bound the wait, then
  // restore the connection's usual timeout.
  sqlite3_busy_timeout(db_, wait_ms);
  const int rc =
      sqlite3_wal_checkpoint_v2(db_, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  sqlite3_busy_timeout(db_, busy_timeout_ms_);
  if (rc == SQLITE_OK || rc == SQLITE_BUSY) return Status::Ok();
  return SqliteError(db_, rc, "wal_checkpoint(TRUNCATE)");
}

}  // namespace optrace::daemon
