#include "storage/string_uses.h"

namespace optrace::daemon {

Result<std::unique_ptr<StringUses>> StringUses::Create(SqliteConnection& db) {
  std::unique_ptr<StringUses> uses(new StringUses(db));
  Status prepared = uses->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return uses;
}

Status StringUses::PrepareStatements() {
  const std::pair<SqliteStatement*, const char*> statements[] = {
      {&insert_use_, "INSERT OR IGNORE INTO session_strings(session_id, string_id) VALUES(?, ?)"},
      {&restore_string_, "INSERT OR IGNORE INTO strings(id, text) VALUES(?, ?)"},
      // Served by session_strings' key (the session's strings) and by
      // session_strings_by_string (anyone else's use of each).
      {&collect_,
       "DELETE FROM strings WHERE id IN "
       "(SELECT string_id FROM session_strings WHERE session_id = ?1) AND NOT EXISTS "
       "(SELECT 1 FROM session_strings AS other "
       "WHERE other.string_id = strings.id AND other.session_id <> ?1) "
       "RETURNING id, text"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_.Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Status StringUses::Use(SessionId session, UsedIds& used, StringId id) {
  if (id == 0 || used.Find(id) != nullptr) return Status::Ok();
  used.Insert(id, 0);
  pending_.push_back(session);
  insert_use_.BindUint64(1, session);
  insert_use_.BindUint64(2, id);
  Status inserted = insert_use_.Run();
  if (!inserted.ok()) return inserted;
  const auto removed = collected_.find(id);
  if (removed == collected_.end()) return Status::Ok();
  restore_string_.BindUint64(1, id);
  restore_string_.BindText(2, removed->second);
  pending_restored_.push_back(id);
  return restore_string_.Run();
}

Status StringUses::Write(const StoreBatch& batch) {
  for (const SessionSpans& entry : batch.spans) {
    UsedIds& used = used_[entry.session];
    // Consecutive spans often repeat their strings: one lookup for a run.
    StringId last[3] = {0, 0, 0};
    for (const Span& span : entry.spans) {
      const StringId ids[3] = {span.name, span.tag, span.srcloc};
      for (int i = 0; i < 3; ++i) {
        if (ids[i] == last[i]) continue;
        last[i] = ids[i];
        if (Status done = Use(entry.session, used, ids[i]); !done.ok()) return done;
      }
    }
  }
  for (const SessionInstants& entry : batch.instants) {
    UsedIds& used = used_[entry.session];
    for (const Instant& instant : entry.instants) {
      for (const StringId id : {instant.name, instant.tag}) {
        if (Status done = Use(entry.session, used, id); !done.ok()) return done;
      }
    }
  }
  for (const SessionHalves& entry : batch.halves_opened) {
    UsedIds& used = used_[entry.session];
    for (const HalfOp& half : entry.halves) {
      for (const StringId id : {half.name, half.tag, half.srcloc}) {
        if (Status done = Use(entry.session, used, id); !done.ok()) return done;
      }
    }
  }
  return Status::Ok();
}

void StringUses::Committed(const StoreBatch& batch) {
  pending_.clear();
  for (const StringId id : pending_restored_) collected_.erase(id);
  pending_restored_.clear();
  for (const SessionRecord& record : batch.sessions) {
    if (record.state != SessionState::kRunning) used_.erase(record.id);
  }
}

void StringUses::RolledBack() {
  // The sets hold no removal: the sessions the batch touched start afresh
  // (their next batches record their uses again, which the table ignores).
  for (const SessionId session : pending_) used_.erase(session);
  pending_.clear();
  pending_restored_.clear();
}

Result<uint64_t> StringUses::Collect(SessionId session) {
  used_.erase(session);
  ScopedStatementReset reset(collect_);
  collect_.BindUint64(1, session);
  uint64_t removed = 0;
  for (;;) {
    Result<bool> row = collect_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return removed;
    collected_.emplace(static_cast<StringId>(collect_.ColumnUint64(0)),
                       std::string(collect_.ColumnText(1)));
    ++removed;
  }
}

}  // namespace optrace::daemon
