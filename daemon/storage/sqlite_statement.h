// A prepared SQLite statement: bind, step, read columns, reset.
#ifndef OPTRACE_DAEMON_STORAGE_SQLITE_STATEMENT_H_
#define OPTRACE_DAEMON_STORAGE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// Owns one prepared statement of a SqliteConnection (which must outlive it).
// Move-only. Thread rules: used by the thread that uses its connection.
// Parameter and column indexes are as in SQLite: parameters from 1,
// columns from 0. A bind that fails (a wrong index: a bug) is remembered and
// returned by the next Step or Run, so that call sites stay linear.
class SqliteStatement {
 public:
  // An empty statement, to be assigned a prepared one before any use.
  SqliteStatement() = default;
  // Takes ownership of `stmt` (from sqlite3_prepare_v3 on `db`).
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt64(int index, int64_t value);
  // Stores the bits of `value` (SQLite integers are signed 64-bit); read it
  // back with ColumnUint64.
  void BindUint64(int index, uint64_t value) { BindInt64(index, static_cast<int64_t>(value)); }
  void BindNull(int index);
  // Borrow `text` / `bytes`: they must stay alive and unchanged until the
  // statement has been stepped to its end or reset.
  void BindText(int index, std::string_view text);
  void BindBlob(int index, std::string_view bytes);

  // Runs one step. Returns true when a row is available, false when the
  // statement is done. On done or error the statement is reset (bindings
  // kept), so it never holds a read snapshot longer than needed. Errors
  // name the database and the SQL (see SqliteError for their codes).
  Result<bool> Step();

  // Steps to the end, ignoring any rows, then resets. For writes.
  Status Run();

  // Ends the current execution early (needed only when a caller stops
  // before Step returned false) and clears a remembered bind error.
  void Reset();

  // Column accessors. REQUIRES: the last Step returned true. Views are
  // valid until the next Step or Reset.
  int64_t ColumnInt64(int index) const { return sqlite3_column_int64(stmt_, index); }
  uint64_t ColumnUint64(int index) const { return static_cast<uint64_t>(ColumnInt64(index)); }
  std::string_view ColumnText(int index) const;
  std::string_view ColumnBlob(int index) const;
  // The column's name in the result (for error messages).
  std::string_view ColumnName(int index) const;

 private:
  void NoteBind(int rc, int index);
  std::string_view Sql() const;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  int bind_rc_ = SQLITE_OK;  // first failed bind since the last reset
  int bind_index_ = 0;
};

// Resets a statement when the scope ends, for loops that may stop early.
class ScopedStatementReset {
 public:
  explicit ScopedStatementReset(SqliteStatement& statement) : statement_(statement) {}
  ~ScopedStatementReset() { statement_.Reset(); }
  ScopedStatementReset(const ScopedStatementReset&) = delete;
  ScopedStatementReset& operator=(const ScopedStatementReset&) = delete;

 private:
  SqliteStatement& statement_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SQLITE_STATEMENT_H_
