#include "forward/forward_cursor.h"

#include <random>
#include <utility>

#include "storage/schema.h"
#include "storage/sqlite_transaction.h"

namespace optrace::daemon {
namespace {

// How long a cursor write waits for the store's writer (it holds the write
// lock for one batch transaction at a time).
constexpr int kCursorBusyTimeoutMs = 10'000;

// A random id in 1..2^63-1 (SQLite integers are signed).
uint64_t NewStoreId() {
  std::random_device random;
  uint64_t id = 0;
  while (id == 0) {
    id = ((static_cast<uint64_t>(random()) << 32) | random()) & 0x7fff'ffff'ffff'ffffULL;
  }
  return id;
}

}  // namespace

Result<std::unique_ptr<ForwardCursor>> ForwardCursor::Open(const std::string& db_path) {
  // kReadOnly first: it fails on a missing file instead of creating one.
  Result<std::unique_ptr<SqliteConnection>> probe =
      SqliteConnection::Open(db_path, SqliteOpenMode::kReadOnly, kCursorBusyTimeoutMs);
  if (!probe.ok()) return probe.status();
  if (Status version = CheckSchemaVersion(*probe.value()); !version.ok()) return version;
  probe.value().reset();
  Result<std::unique_ptr<SqliteConnection>> db =
      SqliteConnection::Open(db_path, SqliteOpenMode::kReadWriteCreate, kCursorBusyTimeoutMs);
  if (!db.ok()) return db.status();
  if (Status sync = db.value()->Exec("PRAGMA synchronous = NORMAL"); !sync.ok()) return sync;
  Status made = db.value()->Exec(
      "INSERT INTO forward_cursor(id, store_id, page_id, spans_sent, batches_sent, "
      "spans_lost_to_retention) VALUES(1, " +
      std::to_string(NewStoreId()) + ", 0, 0, 0, 0) ON CONFLICT(id) DO NOTHING");
  if (!made.ok()) return made;
  std::unique_ptr<ForwardCursor> cursor(new ForwardCursor(std::move(db).value()));
  if (Status prepared = cursor->Prepare(); !prepared.ok()) return prepared;
  return cursor;
}

Status ForwardCursor::Prepare() {
  const std::pair<SqliteStatement*, const char*> statements[] = {
      {&select_row_,
       "SELECT store_id, page_id, spans_sent, batches_sent, spans_lost_to_retention "
       "FROM forward_cursor WHERE id = 1"},
      {&page_exists_, "SELECT count(*) FROM span_pages WHERE id = ?"},
      {&advance_,
       "UPDATE forward_cursor SET page_id = ?1, spans_sent = spans_sent + ?2, "
       "batches_sent = batches_sent + 1, "
       "spans_lost_to_retention = max(0, spans_lost_to_retention - ?3) WHERE id = 1"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_->Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Result<ForwardProgress> ForwardCursor::Load() {
  ScopedStatementReset reset(select_row_);
  Result<bool> row = select_row_.Step();
  if (!row.ok()) return row.status();
  if (!row.value()) {
    return Status::NotFound(db_->path() + ": the forward_cursor row is gone");
  }
  return ForwardProgress{select_row_.ColumnUint64(0), select_row_.ColumnUint64(1),
                         select_row_.ColumnUint64(2), select_row_.ColumnUint64(3),
                         select_row_.ColumnUint64(4)};
}

Result<ForwardProgress> ForwardCursor::Advance(std::span<const SentPage> pages) {
  {
    Result<SqliteTransaction> transaction =
        SqliteTransaction::Begin(*db_, SqliteTransaction::Kind::kImmediate);
    if (!transaction.ok()) return transaction.status();
    uint64_t spans = 0;
    uint64_t deleted_meanwhile = 0;
    for (const SentPage& page : pages) {
      spans += page.spans;
      ScopedStatementReset reset(page_exists_);
      page_exists_.BindUint64(1, page.id);
      Result<bool> row = page_exists_.Step();
      if (!row.ok()) return row.status();
      if (page_exists_.ColumnInt64(0) == 0) deleted_meanwhile += page.spans;
    }
    ScopedStatementReset reset(advance_);
    advance_.BindUint64(1, pages.back().id);
    advance_.BindUint64(2, spans);
    advance_.BindUint64(3, deleted_meanwhile);
    if (Status updated = advance_.Run(); !updated.ok()) return updated;
    if (Status committed = transaction->Commit(); !committed.ok()) return committed;
  }
  return Load();
}

}  // namespace optrace::daemon
