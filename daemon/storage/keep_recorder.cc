#include "storage/keep_recorder.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "storage/sqlite_transaction.h"

namespace optrace::daemon {

Result<std::vector<KeepRecord>> LoadKeeps(SqliteStatement& select_keeps, SessionId session) {
  std::vector<KeepRecord> keeps;
  select_keeps.BindUint64(1, session);
  while (true) {
    Result<bool> row = select_keeps.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    keeps.push_back({.session = session,
                     .first_ns = select_keeps.ColumnInt64(0),
                     .last_ns = select_keeps.ColumnInt64(1),
                     .reason = std::string(select_keeps.ColumnText(2)),
                     .bytes = select_keeps.ColumnUint64(3),
                     .created_ns = select_keeps.ColumnInt64(4)});
  }
  return keeps;
}

Result<std::unique_ptr<KeepRecorder>> KeepRecorder::Create(SqliteConnection& db,
                                                           KeepBudget budget) {
  std::unique_ptr<KeepRecorder> recorder(new KeepRecorder(db, budget));
  Status prepared = recorder->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return recorder;
}

Status KeepRecorder::PrepareStatements() {
  const std::pair<SqliteStatement*, const char*> statements[] = {
      {&select_uid_, "SELECT uid FROM sessions WHERE id = ?"},
      // An index seek (span_pages_by_last_start); NULL without pages.
      {&select_newest_,
       "SELECT count(*), coalesce(max(last_start_ns), 0) FROM span_pages WHERE session_id = ?"},
      {&select_keeps_, kSelectKeepsSql},
      // length() of a blob reads its record header, not its overflow pages.
      {&measure_,
       "SELECT coalesce(sum(length(data)), 0) FROM span_pages WHERE session_id = ?1 "
       "AND first_start_ns <= ?3 AND last_start_ns >= ?2"},
      {&uid_bytes_,
       "SELECT coalesce(sum(bytes), 0) FROM keeps WHERE session_id IN "
       "(SELECT id FROM sessions WHERE uid = ?)"},
      {&database_bytes_, "SELECT coalesce(sum(bytes), 0) FROM keeps"},
      {&delete_keep_, "DELETE FROM keeps WHERE session_id = ? AND first_ns = ?"},
      {&insert_keep_,
       "INSERT INTO keeps(session_id, first_ns, last_ns, reason, bytes, created_ns) "
       "VALUES(?, ?, ?, ?, ?, ?)"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_.Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Result<uint64_t> KeepRecorder::StepBytes(SqliteStatement& statement) {
  ScopedStatementReset reset(statement);
  Result<bool> row = statement.Step();
  if (!row.ok()) return row.status();
  return row.value() ? statement.ColumnUint64(0) : 0;
}

Result<KeepRecord> KeepRecorder::Resolve(const KeepRequest& request, int64_t now_ns) {
  KeepRecord keep{.session = request.session,
                  .first_ns = request.first_ns,
                  .last_ns = request.last_ns,
                  .reason = request.reason,
                  .created_ns = now_ns};
  const std::string session = "session " + std::to_string(request.session);
  if (request.last_duration_ns < 0) {
    return Status::InvalidArgument("keep of " + session + ": duration " +
                                   std::to_string(request.last_duration_ns) + " ns is negative");
  }
  select_newest_.BindUint64(1, request.session);
  ScopedStatementReset reset(select_newest_);
  Result<bool> row = select_newest_.Step();
  if (!row.ok()) return row.status();
  if (!row.value() || select_newest_.ColumnInt64(0) == 0) {
    return Status::InvalidArgument("keep of " + session + ": it has no stored spans to keep");
  }
  const int64_t newest_ns = select_newest_.ColumnInt64(1);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (request.last_duration_ns > 0) {
    keep.last_ns = newest_ns;
    keep.first_ns =
        newest_ns > kMin + request.last_duration_ns ? newest_ns - request.last_duration_ns : kMin;
  }
  if (budget_.max_ahead_ns > 0) {
    const int64_t ahead_ns =
        newest_ns < kMax - budget_.max_ahead_ns ? newest_ns + budget_.max_ahead_ns : kMax;
    keep.last_ns = std::min(keep.last_ns, ahead_ns);
  }
  if (keep.first_ns > keep.last_ns) {
    return Status::InvalidArgument("keep of " + session + ": first_ns " +
                                   std::to_string(keep.first_ns) + " is after last_ns " +
                                   std::to_string(keep.last_ns));
  }
  return keep;
}

Result<KeepRecord> KeepRecorder::Record(const KeepRequest& request, int64_t now_ns) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  uint32_t uid = 0;
  {
    select_uid_.BindUint64(1, request.session);
    ScopedStatementReset reset(select_uid_);
    Result<bool> row = select_uid_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::NotFound("no session " + std::to_string(request.session));
    uid = static_cast<uint32_t>(select_uid_.ColumnUint64(0));
  }
  Result<KeepRecord> added = Resolve(request, now_ns);
  if (!added.ok()) return added.status();
  Result<std::vector<KeepRecord>> existing = LoadKeeps(select_keeps_, request.session);
  if (!existing.ok()) return existing.status();
  KeepMerge merge = MergeKeep(existing.value(), added.value());

  measure_.BindUint64(1, request.session);
  measure_.BindInt64(2, merge.merged.first_ns);
  measure_.BindInt64(3, merge.merged.last_ns);
  Result<uint64_t> bytes = StepBytes(measure_);
  if (!bytes.ok()) return bytes.status();
  merge.merged.bytes = bytes.value();

  uint64_t absorbed_bytes = 0;
  uint64_t session_bytes = 0;
  for (const KeepRecord& keep : existing.value()) session_bytes += keep.bytes;
  for (size_t index : merge.absorbed) absorbed_bytes += existing.value()[index].bytes;
  uid_bytes_.BindUint64(1, uid);
  Result<uint64_t> uid_bytes = StepBytes(uid_bytes_);
  if (!uid_bytes.ok()) return uid_bytes.status();
  Result<uint64_t> database_bytes = StepBytes(database_bytes_);
  if (!database_bytes.ok()) return database_bytes.status();
  const KeptBytes held{.session = session_bytes - absorbed_bytes,
                       .uid = uid_bytes.value() - absorbed_bytes,
                       .database = database_bytes.value() - absorbed_bytes};
  Status fits = CheckKeepBudget(budget_, held, merge.merged.bytes, request.session, uid);
  if (!fits.ok()) return fits;  // the transaction rolls back: nothing stored

  for (size_t index : merge.absorbed) {
    delete_keep_.BindUint64(1, request.session);
    delete_keep_.BindInt64(2, existing.value()[index].first_ns);
    Status deleted = delete_keep_.Run();
    if (!deleted.ok()) return deleted;
  }
  insert_keep_.BindUint64(1, request.session);
  insert_keep_.BindInt64(2, merge.merged.first_ns);
  insert_keep_.BindInt64(3, merge.merged.last_ns);
  insert_keep_.BindText(4, merge.merged.reason);
  insert_keep_.BindUint64(5, merge.merged.bytes);
  insert_keep_.BindInt64(6, merge.merged.created_ns);
  Status inserted = insert_keep_.Run();
  if (!inserted.ok()) return inserted;
  Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  return std::move(merge.merged);
}

}  // namespace optrace::daemon
