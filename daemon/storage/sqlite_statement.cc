#include "storage/sqlite_statement.h"

#include <string>
#include <utility>

#include "storage/sqlite_error.h"

namespace optrace::daemon {

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_rc_(other.bind_rc_),
      bind_index_(other.bind_index_) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_rc_ = other.bind_rc_;
    bind_index_ = other.bind_index_;
  }
  return *this;
}

void SqliteStatement::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && bind_rc_ == SQLITE_OK) {
    bind_rc_ = rc;
    bind_index_ = index;
  }
}

void SqliteStatement::BindInt64(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value), index);
}

void SqliteStatement::BindNull(int index) { NoteBind(sqlite3_bind_null(stmt_, index), index); }

void SqliteStatement::BindText(int index, std::string_view text) {
  NoteBind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8),
           index);
}

void SqliteStatement::BindBlob(int index, std::string_view bytes) {
  // A zero-length blob from a null pointer would bind NULL: give SQLite a
  // valid pointer so that an empty blob stays a blob.
  static constexpr char kEmpty = 0;
  const char* data = bytes.empty() ? &kEmpty : bytes.data();
  NoteBind(sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_STATIC), index);
}

std::string_view SqliteStatement::Sql() const {
  const char* sql = sqlite3_sql(stmt_);
  return sql != nullptr ? std::string_view(sql) : std::string_view();
}

Result<bool> SqliteStatement::Step() {
  if (bind_rc_ != SQLITE_OK) {
    const int rc = bind_rc_;
    Reset();
    return SqliteError(
        db_, rc, "binding parameter " + std::to_string(bind_index_) + " of " + std::string(Sql()));
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return false;
  }
  // Build the Status before resetting: the reset may change errmsg.
  Status error = SqliteError(db_, rc, Sql());
  sqlite3_reset(stmt_);
  return error;
}

Status SqliteStatement::Run() {
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();
  }
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  bind_rc_ = SQLITE_OK;
}

std::string_view SqliteStatement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  const int bytes = sqlite3_column_bytes(stmt_, index);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<size_t>(bytes)};
}

std::string_view SqliteStatement::ColumnBlob(int index) const {
  const void* blob = sqlite3_column_blob(stmt_, index);
  const int bytes = sqlite3_column_bytes(stmt_, index);
  if (blob == nullptr) return {};
  return {static_cast<const char*>(blob), static_cast<size_t>(bytes)};
}

std::string_view SqliteStatement::ColumnName(int index) const {
  const char* name = sqlite3_column_name(stmt_, index);
  return name != nullptr ? std::string_view(name) : std::string_view("?");
}

}  // namespace optrace::daemon
