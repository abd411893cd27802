#include "storage/retention.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "storage/schema.h"
#include "storage/sqlite_transaction.h"
#include "storage/trim_choice.h"

namespace optrace::daemon {
namespace {

// How long the final checkpoint waits for readers of older snapshots.
constexpr int kCheckpointWaitMs = 200;

// Every table with per-session rows, and the column naming the session.
// sessions comes last so that a half-done pass never leaves rows without
// their session.
constexpr std::pair<const char*, const char*> kSessionTables[] = {
    {"span_pages", "session_id"},
    {"instants", "session_id"},
    {"op_aggregates", "session_id"},
    {"open_halves", "session_id"},
    {"ring_cursors", "session_id"},
    {"keeps", "session_id"},
    {"listings", "session_id"},
    {"session_strings", "session_id"},
    {"step_records", "session_id"},
    {"step_record_counts", "session_id"},
    {"sessions", "id"},
};

// Pages one trim step takes from a running session at most.
constexpr size_t kPagesPerStep = 64;

}  // namespace

Result<std::unique_ptr<Retention>> Retention::Create(SqliteConnection& db, PageTrimmer& trimmer,
                                                     StringUses& strings, RetentionPolicy policy) {
  std::unique_ptr<Retention> retention(new Retention(db, trimmer, strings, policy));
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
  Result<SqliteStatement> usage = db_.Prepare(
      "SELECT id, uid, state = 'running', page_bytes FROM sessions "
      "ORDER BY state = 'running', end_ns, id");
  if (!usage.ok()) return usage.status();
  select_usage_ = std::move(usage).value();
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

Result<RetentionPass> Retention::Enforce(int64_t now_ns) {
  RetentionPass pass;
  // Runs after deletions and trims on every path out, errors included, so
  // that what went is also given back to the file system.
  auto finish = [&](Status status) -> Result<RetentionPass> {
    if (pass.sessions_deleted > 0 || pass.spans_trimmed > 0) {
      Status compacted = Compact();
      if (status.ok()) status = compacted;
    }
    if (!status.ok()) return status;
    return pass;
  };

  if (policy_.max_age_ns > 0 && now_ns > std::numeric_limits<int64_t>::min() + policy_.max_age_ns) {
    Result<std::vector<SessionId>> expired = EndedBefore(now_ns - policy_.max_age_ns);
    if (!expired.ok()) return finish(expired.status());
    for (SessionId session : expired.value()) {
      Status removed = DeleteSession(session, &pass);
      if (!removed.ok()) return finish(removed);
    }
  }
  if (policy_.max_bytes == 0 && policy_.uid_max_bytes == 0) return finish(Status::Ok());
  Result<std::vector<SessionUsage>> usage = Usage();
  if (!usage.ok()) return finish(usage.status());
  auto uid_totals = [&] {
    std::map<uint32_t, uint64_t> totals;
    for (const SessionUsage& session : usage.value()) totals[session.uid] += session.bytes;
    return totals;
  };
  size_t trim_budget = kMaxTrimPagesPerPass;
  if (policy_.uid_max_bytes > 0) {
    for (const auto& [uid, first_total] : uid_totals()) {
      uint64_t total = first_total;
      while (total > policy_.uid_max_bytes) {
        Result<bool> reduced =
            ReduceUid(uid, total - policy_.uid_max_bytes, &usage.value(), &pass, &trim_budget);
        if (!reduced.ok()) return finish(reduced.status());
        if (!reduced.value()) break;
        total = uid_totals()[uid];
      }
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
  std::set<uint32_t> spent;  // uids with nothing more to give
  while (true) {
    Result<uint64_t> used = UsedBytes();
    if (!used.ok()) return finish(used.status());
    if (used.value() <= policy_.max_bytes) break;
    std::optional<std::pair<uint64_t, uint32_t>> biggest;  // (bytes, uid)
    for (const auto& [uid, bytes] : uid_totals()) {
      if (!spent.contains(uid) && (!biggest || bytes > biggest->first)) biggest = {bytes, uid};
    }
    if (!biggest) break;
    Result<bool> reduced = ReduceUid(biggest->second, used.value() - policy_.max_bytes,
                                     &usage.value(), &pass, &trim_budget);
    if (!reduced.ok()) return finish(reduced.status());
    if (reduced.value()) continue;
    // A spent budget ends the pass rather than passing to the next uid,
    // which would then give what the biggest one still had.
    if (trim_budget == 0) break;
    spent.insert(biggest->second);
  }
  return finish(Status::Ok());
}

Result<bool> Retention::ReduceUid(uint32_t uid, uint64_t excess, std::vector<SessionUsage>* usage,
                                  RetentionPass* pass, size_t* trim_budget) {
  // Ended sessions come first in `usage`, by end time.
  const auto ended = std::find_if(usage->begin(), usage->end(), [&](const SessionUsage& s) {
    return s.uid == uid && !s.running;
  });
  if (ended != usage->end()) {
    Status removed = DeleteSession(ended->id, pass);
    if (!removed.ok()) return removed;
    usage->erase(ended);
    return true;
  }
  // Its running sessions, biggest first; the first one that can give does.
  std::vector<SessionUsage*> running;
  for (SessionUsage& session : *usage) {
    if (session.uid == uid && session.running) running.push_back(&session);
  }
  std::sort(running.begin(), running.end(),
            [](const SessionUsage* a, const SessionUsage* b) { return a->bytes > b->bytes; });
  for (SessionUsage* session : running) {
    if (*trim_budget == 0) return false;
    Result<SessionExtent> extent = trimmer_.Extent(session->id);
    if (!extent.ok()) return extent.status();
    const size_t look = std::min(*trim_budget, kPagesPerStep);
    const TrimGoal goal{.max_bytes = extent->page_bytes - std::min(extent->page_bytes, excess)};
    Result<std::vector<PageExtent>> next =
        trimmer_.NextToTrim(session->id, extent->page_bytes, extent->newest_start_ns, goal, look);
    if (!next.ok()) return next.status();
    const std::vector<PageExtent>& chosen = next.value();
    if (chosen.empty()) continue;
    Result<SqliteTransaction> transaction =
        SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
    if (!transaction.ok()) return transaction.status();
    Result<TrimTotals> trimmed = trimmer_.Trim(session->id, chosen);
    if (!trimmed.ok()) return trimmed.status();
    Status committed = transaction->Commit();
    if (!committed.ok()) return committed;
    session->bytes -= std::min(session->bytes, trimmed->bytes);
    pass->spans_trimmed += trimmed->spans;
    *trim_budget -= chosen.size();
    return true;
  }
  return false;
}

Result<std::vector<Retention::SessionUsage>> Retention::Usage() {
  std::vector<SessionUsage> sessions;
  while (true) {
    Result<bool> row = select_usage_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) break;
    sessions.push_back({.id = select_usage_.ColumnUint64(0),
                        .uid = static_cast<uint32_t>(select_usage_.ColumnUint64(1)),
                        .running = select_usage_.ColumnInt64(2) != 0,
                        .bytes = select_usage_.ColumnUint64(3)});
  }
  return sessions;
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

Status Retention::DeleteSession(SessionId session, RetentionPass* pass) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  record_high_water_.BindUint64(1, session);
  Status recorded = record_high_water_.Run();
  if (!recorded.ok()) return recorded;
  count_unforwarded_.BindUint64(1, session);
  Status counted = count_unforwarded_.Run();
  if (!counted.ok()) return counted;
  // Before its session_strings rows go: they say which strings it used.
  Result<uint64_t> strings = strings_.Collect(session);
  if (!strings.ok()) return strings.status();
  for (SqliteStatement& remove : delete_rows_) {
    remove.BindUint64(1, session);
    Status removed = remove.Run();
    if (!removed.ok()) return removed;
  }
  Status committed = transaction->Commit();
  if (!committed.ok()) return committed;
  ++pass->sessions_deleted;
  pass->strings_removed += strings.value();
  return Status::Ok();
}

Status Retention::Compact() {
  Status vacuumed = db_.Exec("PRAGMA incremental_vacuum");
  if (!vacuumed.ok()) return vacuumed;
  return db_.CheckpointTruncate(kCheckpointWaitMs);
}

}  // namespace optrace::daemon
