#include "storage/retention.h"

#include <limits>
#include <string>
#include <utility>

#include "storage/schema.h"
#include "storage/sqlite_transaction.h"

namespace optrace::daemon {
namespace {

// How long the final checkpoint waits for readers of older snapshots.
constexpr int kCheckpointWaitMs = 200;

// Every table with per-session rows, and the column naming the session.
// sessions comes last so that a half-done pass never leaves rows without
// their session.
constexpr std::pair<const char*, const char*> kSessionTables[] = {
    {"span_pages", "session_id"},  {"instants", "session_id"},     {"op_aggregates", "session_id"},
    {"open_halves", "session_id"}, {"ring_cursors", "session_id"}, {"sessions", "id"},
};

}  // namespace

Result<std::unique_ptr<Retention>> Retention::Create(SqliteConnection& db, RetentionPolicy policy) {
  std::unique_ptr<Retention> retention(new Retention(db, policy));
  Status prepared = retention->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return retention;
}

Status Retention::PrepareStatements() {
  // Oldest end first; end_ns can tie (or be 0 for a record that never got
  // one), the id breaks ties in creation order.
  Result<SqliteStatement> select = db_.Prepare(
      "SELECT id FROM sessions WHERE state <> 'running' AND end_ns < ? ORDER BY end_ns, id");
  if (!select.ok()) return select.status();
  select_ended_before_ = std::move(select).value();
  Result<SqliteStatement> high_water =
      db_.Prepare(std::string("INSERT INTO meta(key, value) VALUES('") + kSessionIdHighWaterKey +
                  "', ?) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)");
  if (!high_water.ok()) return high_water.status();
  record_high_water_ = std::move(high_water).value();
  // Spans of the session that the forwarder has not sent yet (its pages
  // above the cursor) are lost to it: counted where they go. No row, no
  // forwarder: nothing to count.
  Result<SqliteStatement> unforwarded = db_.Prepare(
      "UPDATE forward_cursor SET spans_lost_to_retention = spans_lost_to_retention + "
      "(SELECT coalesce(sum(span_count), 0) FROM span_pages WHERE session_id = ?1 "
      "AND id > forward_cursor.page_id)");
  if (!unforwarded.ok()) return unforwarded.status();
  count_unforwarded_ = std::move(unforwarded).value();
  for (const auto& [table, column] : kSessionTables) {
    Result<SqliteStatement> remove =
        db_.Prepare(std::string("DELETE FROM ") + table + " WHERE " + column + " = ?");
    if (!remove.ok()) return remove.status();
    delete_rows_.push_back(std::move(remove).value());
  }
  return Status::Ok();
}

Result<uint64_t> Retention::Enforce(int64_t now_ns) {
  uint64_t deleted = 0;
  // Runs after deletions on every path out, errors included, so that what
  // was deleted is also given back to the file system.
  auto finish = [&](Status status) -> Result<uint64_t> {
    if (deleted > 0) {
      Status compacted = Compact();
      if (status.ok()) status = compacted;
    }
    if (!status.ok()) return status;
    return deleted;
  };

  if (policy_.max_age_ns > 0 && now_ns > std::numeric_limits<int64_t>::min() + policy_.max_age_ns) {
    Result<std::vector<SessionId>> expired = EndedBefore(now_ns - policy_.max_age_ns);
    if (!expired.ok()) return finish(expired.status());
    for (SessionId session : expired.value()) {
      Status removed = DeleteSession(session);
      if (!removed.ok()) return finish(removed);
      ++deleted;
    }
  }
  if (policy_.max_bytes == 0) return finish(Status::Ok());
  Result<uint64_t> total = db_.BytesOnDisk();
  if (!total.ok()) return finish(total.status());
  if (total.value() <= policy_.max_bytes) return finish(Status::Ok());
  // Above the bound: first fold the WAL into the main file, which may be
  // enough; then measure by the pages in use (freed pages are given back
  // by Compact), so that a WAL held by a slow reader never makes us delete
  // more than needed.
  Status checkpointed = db_.CheckpointTruncate(kCheckpointWaitMs);
  if (!checkpointed.ok()) return finish(checkpointed);
  Result<std::vector<SessionId>> candidates = EndedBefore(std::numeric_limits<int64_t>::max());
  if (!candidates.ok()) return finish(candidates.status());
  for (SessionId session : candidates.value()) {
    Result<uint64_t> used = UsedBytes();
    if (!used.ok()) return finish(used.status());
    if (used.value() <= policy_.max_bytes) break;
    Status removed = DeleteSession(session);
    if (!removed.ok()) return finish(removed);
    ++deleted;
  }
  return finish(Status::Ok());
}

Result<std::vector<SessionId>> Retention::EndedBefore(int64_t cutoff_ns) {
  std::vector<SessionId> sessions;
  select_ended_before_.BindInt64(1, cutoff_ns);
  while (true) {
    Result<bool> row = select_ended_before_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    sessions.push_back(select_ended_before_.ColumnUint64(0));
  }
  return sessions;
}

Result<uint64_t> Retention::UsedBytes() {
  Result<int64_t> pages = db_.QueryInt64("PRAGMA page_count");
  if (!pages.ok()) return pages.status();
  Result<int64_t> free_pages = db_.QueryInt64("PRAGMA freelist_count");
  if (!free_pages.ok()) return free_pages.status();
  Result<int64_t> page_size = db_.QueryInt64("PRAGMA page_size");
  if (!page_size.ok()) return page_size.status();
  return static_cast<uint64_t>(pages.value() - free_pages.value()) *
         static_cast<uint64_t>(page_size.value());
}

Status Retention::DeleteSession(SessionId session) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  record_high_water_.BindUint64(1, session);
  Status recorded = record_high_water_.Run();
  if (!recorded.ok()) return recorded;
  count_unforwarded_.BindUint64(1, session);
  Status counted = count_unforwarded_.Run();
  if (!counted.ok()) return counted;
  for (SqliteStatement& remove : delete_rows_) {
    remove.BindUint64(1, session);
    Status removed = remove.Run();
    if (!removed.ok()) return removed;
  }
  return transaction->Commit();
}

Status Retention::Compact() {
  Status vacuumed = db_.Exec("PRAGMA incremental_vacuum");
  if (!vacuumed.ok()) return vacuumed;
  return db_.CheckpointTruncate(kCheckpointWaitMs);
}

}  // namespace optrace::daemon
