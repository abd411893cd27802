// SqliteExportWriter: the SQLite export, a database file of plain rows
// built in a private temporary folder and then streamed.
#ifndef OPTRACE_DAEMON_EXPORT_SQLITE_EXPORT_WRITER_H_
#define OPTRACE_DAEMON_EXPORT_SQLITE_EXPORT_WRITER_H_

#include <memory>
#include <optional>
#include <string>

#include "export/export_buffer.h"
#include "export/export_writer.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/sqlite_transaction.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// The file holds three tables, strings resolved to text, times and
// durations in nanoseconds:
//   sessions  one row, the columns of VisitSessionColumns
//   spans     one row per span, the CSV columns (VisitSpanColumns)
//   instants  one row per mark or counter sample (VisitInstantColumns)
// 64-bit unsigned values (op ids) are stored as SQLite's signed integers:
// those above 2^63 - 1 read back negative, as in the daemon's own file.
// Every row is written in one transaction; Finish commits, closes the file
// and appends its bytes to the buffer (sending full chunks as it goes).
// The folder (mode 0700, under std::filesystem::temp_directory_path(),
// i.e. $TMPDIR or /tmp) and the file are removed when the writer is
// destroyed, whatever happened. Disk use: about 100 bytes per span, for
// the length of the export.
// Thread rules: one thread at a time.
class SqliteExportWriter final : public ExportWriter {
 public:
  // Creates the folder, the database and its tables. Borrows `strings` and
  // `buffer`, which must outlive the writer. Errors: kIoError when the
  // folder cannot be made; SQLite's (see SqliteError).
  static Result<std::unique_ptr<SqliteExportWriter>> Create(StringCache& strings,
                                                            ExportBuffer& buffer);
  ~SqliteExportWriter() override;
  SqliteExportWriter(const SqliteExportWriter&) = delete;
  SqliteExportWriter& operator=(const SqliteExportWriter&) = delete;

  Status Begin(const SessionRecord& session) override;
  Status AddSpan(const Span& span) override;
  Status AddInstant(const Instant& instant) override;
  // Errors: SQLite's, kIoError reading the file back, and the buffer's
  // kUnavailable when the client is gone.
  Status Finish() override;

 private:
  SqliteExportWriter(StringCache& strings, ExportBuffer& buffer, std::string folder)
      : strings_(strings), buffer_(buffer), folder_(std::move(folder)) {}
  Status Open();
  // Binds the values `visit_columns` gives (see export_columns.h) to
  // `statement`'s parameters in order and runs it.
  template <typename VisitColumns>
  Status InsertRow(SqliteStatement& statement, VisitColumns&& visit_columns);
  // Appends the finished file to the buffer, sending each full chunk.
  Status StreamFile();

  StringCache& strings_;
  ExportBuffer& buffer_;
  const std::string folder_;
  const std::string path_ = folder_ + "/session.db";
  // Declared before the statements and the transaction, which use it, so
  // that it is destroyed after them.
  std::unique_ptr<SqliteConnection> db_;
  std::optional<SqliteTransaction> transaction_;
  SqliteStatement insert_session_;
  SqliteStatement insert_span_;
  SqliteStatement insert_instant_;
  SessionId session_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_SQLITE_EXPORT_WRITER_H_
