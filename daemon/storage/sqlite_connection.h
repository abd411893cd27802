// An open SQLite database connection (RAII over sqlite3*).
#ifndef OPTRACE_DAEMON_STORAGE_SQLITE_CONNECTION_H_
#define OPTRACE_DAEMON_STORAGE_SQLITE_CONNECTION_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

enum class SqliteOpenMode {
  kReadWriteCreate,  // creates the file if absent
  kReadOnly,         // fails with kNotFound when the file does not exist
};

// Owns one connection. Not copyable or movable: statements keep a pointer
// to it. Thread rules: one thread at a time (opened with SQLITE_OPEN_NOMUTEX);
// statements prepared from it must be destroyed before it.
class SqliteConnection {
 public:
  // Opens `path` with `mode` and sets a busy timeout of `busy_timeout_ms`
  // (how long a statement waits for another connection's lock before it
  // fails with kUnavailable). Errors name the path and the cause.
  static Result<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                        SqliteOpenMode mode, int busy_timeout_ms);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  // Runs `sql` (one or more statements; rows are discarded).
  Status Exec(const std::string& sql);

  // Prepares one statement meant to be kept and reused.
  Result<SqliteStatement> Prepare(std::string_view sql);

  // Runs `sql`, a statement whose first row's first column is an integer
  // (e.g. "PRAGMA page_count"), and returns it; kNotFound when there is no row.
  Result<int64_t> QueryInt64(std::string_view sql);

  // Like QueryInt64, for a text result (e.g. "PRAGMA journal_mode=WAL").
  Result<std::string> QueryText(std::string_view sql);

  // The size of the database on disk: page_count * page_size of the main
  // file plus the size of its WAL file (0 when there is none).
  Result<uint64_t> BytesOnDisk();

  // Copies the whole WAL into the main file and truncates the WAL to zero
  // bytes (so that the file sizes really shrink after deletions). Waits up
  // to `wait_ms` for readers of older snapshots; when some remain it copies
  // what it can without them and returns OK (the WAL then keeps its size
  // until a later checkpoint). REQUIRES: no transaction open.
  Status CheckpointTruncate(int wait_ms);

  // Whether an explicit transaction is open (SQLite may end one by itself
  // after some errors).
  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

  const std::string& path() const { return path_; }

 private:
  friend class SqliteBlobReader;  // incremental blob I/O on this connection

  SqliteConnection(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db), path_(std::move(path)), busy_timeout_ms_(busy_timeout_ms) {}

  sqlite3* db_;
  const std::string path_;
  const int busy_timeout_ms_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SQLITE_CONNECTION_H_
