// Whole BLOB values of one column, read by rowid into a buffer the caller
// reuses (SQLite's incremental blob I/O), for readers of many large values:
// a column read through a statement hands back SQLite's own fresh copy of
// each value, which for the megabyte span pages means a fresh allocation,
// mapped and faulted in, per page.
#ifndef OPTRACE_DAEMON_STORAGE_SQLITE_BLOB_READER_H_
#define OPTRACE_DAEMON_STORAGE_SQLITE_BLOB_READER_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "common/status.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {

// Reads values of `table`.`column` of one connection. While a value has
// been read and Close has not been called, the reader holds an open blob
// handle, which SQLite counts as an unfinished statement: it keeps the
// connection's read transaction (and its snapshot) open, and must be
// closed before a caller's transaction ends or its snapshot is left.
// Thread rules: the connection's (one thread at a time). `db` must outlive
// the reader; the reader must be closed before `db` is.
class SqliteBlobReader {
 public:
  SqliteBlobReader(SqliteConnection& db, std::string table, std::string column)
      : db_(db), table_(std::move(table)), column_(std::move(column)) {}
  ~SqliteBlobReader() { Close(); }
  SqliteBlobReader(const SqliteBlobReader&) = delete;
  SqliteBlobReader& operator=(const SqliteBlobReader&) = delete;

  // Replaces `*out` with the value in row `rowid` (its room is reused).
  // Errors: SQLite's (SqliteError), naming the table, column and row; a
  // row that does not exist in the connection's snapshot is one.
  Status Read(int64_t rowid, std::string* out);

  // Closes the blob handle, if open. Never fails.
  void Close();

 private:
  SqliteConnection& db_;
  const std::string table_;
  const std::string column_;
  sqlite3_blob* blob_ = nullptr;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SQLITE_BLOB_READER_H_
