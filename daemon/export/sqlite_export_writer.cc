#include "export/sqlite_export_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "export/export_columns.h"
#include "storage/row_mapping.h"

namespace optrace::daemon {
namespace {

// The export file is private to one request: nobody waits for its locks.
constexpr int kBusyTimeoutMs = 0;

// "CREATE TABLE <name>(<column> <type>, ...)" and
// "INSERT INTO <name> VALUES(?, ...)" for the columns `visit_columns`
// (a function that calls its argument like the Visit*Columns of
// export_columns.h) gives.
struct TableSql {
  std::string create;
  std::string insert;
};

template <typename VisitColumns>
TableSql MakeTableSql(std::string_view name, VisitColumns&& visit_columns) {
  TableSql sql{"CREATE TABLE " + std::string(name) + "(", ""};
  int count = 0;
  visit_columns([&](std::string_view column, const auto& value) {
    using Value = std::decay_t<decltype(value)>;
    constexpr bool kText =
        std::is_same_v<Value, DictText> || std::is_same_v<Value, std::string_view>;
    if (count++ != 0) sql.create += ", ";
    sql.create += std::string(column) + (kText ? " TEXT" : " INTEGER");
  });
  sql.create += ")";
  sql.insert = "INSERT INTO " + std::string(name) + " VALUES(" + Placeholders(count) + ")";
  return sql;
}

// Closes a file descriptor when the scope ends.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<std::unique_ptr<SqliteExportWriter>> SqliteExportWriter::Create(StringCache& strings,
                                                                       ExportBuffer& buffer) {
  std::error_code error;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(error);
  if (error) return Status::IoError("no temporary folder for the export: " + error.message());
  std::string name = (temp / "optraced-export-XXXXXX").string();
  // mkdtemp makes the folder with mode 0700: only the daemon's user reads it.
  if (::mkdtemp(name.data()) == nullptr) {
    return Status::IoError(name + ": mkdtemp: " + std::strerror(errno));
  }
  std::unique_ptr<SqliteExportWriter> writer(new SqliteExportWriter(strings, buffer, name));
  Status opened = writer->Open();
  if (!opened.ok()) return opened;
  return writer;
}

SqliteExportWriter::~SqliteExportWriter() {
  insert_session_ = SqliteStatement();
  insert_span_ = SqliteStatement();
  insert_instant_ = SqliteStatement();
  transaction_.reset();
  db_.reset();
  std::error_code ignored;  // nothing left to report to: the export is over
  std::filesystem::remove_all(folder_, ignored);
}

Status SqliteExportWriter::Open() {
  Result<std::unique_ptr<SqliteConnection>> db =
      SqliteConnection::Open(path_, SqliteOpenMode::kReadWriteCreate, kBusyTimeoutMs);
  if (!db.ok()) return db.status();
  db_ = std::move(db).value();
  // No journal, no syncs: a failed export deletes the whole file anyway.
  Status set = db_->Exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
  if (!set.ok()) return set;
  // The column visitors over placeholder records: a table definition needs
  // only the columns' names and types.
  const std::pair<SqliteStatement*, TableSql> tables[] = {
      {&insert_session_,
       MakeTableSql("sessions", [](auto&& v) { VisitSessionColumns(SessionRecord{}, v); })},
      {&insert_span_, MakeTableSql("spans", [](auto&& v) { VisitSpanColumns(0, Span{}, v); })},
      {&insert_instant_,
       MakeTableSql("instants", [](auto&& v) { VisitInstantColumns(0, Instant{}, v); })},
  };
  for (const auto& [statement, sql] : tables) {
    Status created = db_->Exec(sql.create);
    if (!created.ok()) return created;
    Result<SqliteStatement> prepared = db_->Prepare(sql.insert);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(*db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  transaction_.emplace(std::move(transaction).value());
  return Status::Ok();
}

template <typename VisitColumns>
Status SqliteExportWriter::InsertRow(SqliteStatement& statement, VisitColumns&& visit_columns) {
  int index = 1;
  visit_columns([&](std::string_view, const auto& value) {
    using Value = std::decay_t<decltype(value)>;
    // Bound text must outlive the Run below: cached strings, the record's
    // own fields and fixed words all do.
    if constexpr (std::is_same_v<Value, DictText>) {
      statement.BindText(index, strings_.Get(value.id));
    } else if constexpr (std::is_same_v<Value, std::string_view>) {
      statement.BindText(index, value);
    } else if constexpr (std::is_same_v<Value, std::optional<uint64_t>>) {
      if (value) {
        statement.BindUint64(index, *value);
      } else {
        statement.BindNull(index);  // unknown
      }
    } else if constexpr (std::is_signed_v<Value>) {
      statement.BindInt64(index, value);
    } else {
      statement.BindUint64(index, value);
    }
    ++index;
  });
  return statement.Run();
}

Status SqliteExportWriter::Begin(const SessionRecord& session) {
  session_ = session.id;
  return InsertRow(insert_session_, [&](auto&& v) { VisitSessionColumns(session, v); });
}

Status SqliteExportWriter::AddSpan(const Span& span) {
  return InsertRow(insert_span_, [&](auto&& v) { VisitSpanColumns(session_, span, v); });
}

Status SqliteExportWriter::AddInstant(const Instant& instant) {
  return InsertRow(insert_instant_, [&](auto&& v) { VisitInstantColumns(session_, instant, v); });
}

Status SqliteExportWriter::Finish() {
  Status committed = transaction_->Commit();
  if (!committed.ok()) return committed;
  transaction_.reset();
  // Close the file before reading it back, so that every page is written.
  insert_session_ = SqliteStatement();
  insert_span_ = SqliteStatement();
  insert_instant_ = SqliteStatement();
  db_.reset();
  return StreamFile();
}

Status SqliteExportWriter::StreamFile() {
  const ScopedFd file(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) return Status::IoError(path_ + ": open: " + std::strerror(errno));
  std::string& out = buffer_.text();
  while (true) {
    const size_t held = out.size();
    out.resize(held + ExportBuffer::kChunkBytes);
    const ssize_t got = ::read(file.get(), out.data() + held, ExportBuffer::kChunkBytes);
    const int read_errno = errno;
    out.resize(held + static_cast<size_t>(std::max<ssize_t>(got, 0)));
    if (got < 0 && read_errno == EINTR) continue;
    if (got < 0) return Status::IoError(path_ + ": read: " + std::strerror(read_errno));
    if (got == 0) return Status::Ok();
    Status sent = buffer_.SendIfFull();
    if (!sent.ok()) return sent;
  }
}

}  // namespace optrace::daemon
