#include "storage/rolling_window.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "storage/sqlite_statement.h"
#include "storage/sqlite_transaction.h"
#include "storage/trim_choice.h"

namespace optrace::daemon {
namespace {

// Pages read per look at a session's oldest: most looks find nothing to
// trim, and a look costs a row read per page.
constexpr size_t kPagesPerLook = 16;

}  // namespace

Status RollingWindow::LoadOwnWindows() {
  Result<SqliteStatement> select = db_.Prepare(
      "SELECT id, window_keep_last_ns, window_keep_last_bytes FROM sessions "
      "WHERE window_overridden = 1 AND state = 'running'");
  if (!select.ok()) return select.status();
  while (true) {
    Result<bool> row = select->Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();
    own_[select->ColumnUint64(0)] = {.keep_last_ns = std::max<int64_t>(select->ColumnInt64(1), 0),
                                     .keep_last_bytes = select->ColumnUint64(2)};
  }
}

void RollingWindow::Note(const StoreBatch& batch) {
  for (const SessionSpans& entry : batch.spans) {
    if (!entry.spans.empty() && LimitsOf(entry.session).enabled()) noted_.insert(entry.session);
  }
  for (const SessionRecord& record : batch.sessions) {
    if (record.state == SessionState::kRunning || !own_.contains(record.id)) continue;
    ended_.insert(record.id);
    noted_.insert(record.id);
  }
}

Result<WindowLimits> RollingWindow::SetOwn(SessionId session, std::optional<WindowLimits> own) {
  Result<SqliteStatement> select = db_.Prepare("SELECT state FROM sessions WHERE id = ?");
  if (!select.ok()) return select.status();
  select->BindUint64(1, session);
  Result<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return Status::NotFound("no session " + std::to_string(session));
  if (select->ColumnText(0) != SessionStateName(SessionState::kRunning)) {
    return Status::FailedPrecondition("session " + std::to_string(session) + " has " +
                                      std::string(select->ColumnText(0)) +
                                      ": its window no longer moves");
  }
  Result<SqliteStatement> update = db_.Prepare(
      "UPDATE sessions SET window_overridden = ?, window_keep_last_ns = ?, "
      "window_keep_last_bytes = ? WHERE id = ?");
  if (!update.ok()) return update.status();
  const WindowLimits stored = own.value_or(WindowLimits{});
  update->BindInt64(1, own.has_value() ? 1 : 0);
  update->BindInt64(2, stored.keep_last_ns);
  update->BindUint64(3, stored.keep_last_bytes);
  update->BindUint64(4, session);
  if (Status updated = update->Run(); !updated.ok()) return updated;
  if (own) {
    own_[session] = *own;
  } else {
    own_.erase(session);
  }
  // Within the new window at the next pass; a wider one trims nothing.
  if (LimitsOf(session).enabled()) noted_.insert(session);
  return LimitsOf(session);
}

WindowLimits RollingWindow::LimitsOf(SessionId session) const {
  const auto own = own_.find(session);
  return own == own_.end() ? defaults_ : own->second;
}

Result<TrimTotals> RollingWindow::Enforce(size_t max_pages) {
  TrimTotals totals;
  std::optional<SqliteTransaction> transaction;
  std::vector<SessionId> within;
  size_t budget = max_pages;
  for (SessionId session : noted_) {
    if (budget == 0) break;
    Result<bool> done = TrimSession(session, &budget, &transaction, &totals);
    if (!done.ok()) return done.status();  // the transaction rolls back
    if (done.value()) within.push_back(session);
  }
  if (transaction) {
    Status committed = transaction->Commit();
    if (!committed.ok()) return committed;
  }
  for (SessionId session : within) {
    noted_.erase(session);
    if (ended_.erase(session) > 0) own_.erase(session);
  }
  return totals;
}

Result<bool> RollingWindow::TrimSession(SessionId session, size_t* budget,
                                        std::optional<SqliteTransaction>* transaction,
                                        TrimTotals* totals) {
  Result<SessionExtent> extent = trimmer_.Extent(session);
  if (!extent.ok()) return extent.status();
  const WindowLimits limits = LimitsOf(session);
  TrimGoal goal;
  if (limits.keep_last_ns > 0 &&
      extent->newest_start_ns > std::numeric_limits<int64_t>::min() + limits.keep_last_ns) {
    goal.drop_before_ns = extent->newest_start_ns - limits.keep_last_ns;
  }
  if (limits.keep_last_bytes > 0) goal.max_bytes = limits.keep_last_bytes;
  // Most passes find a session within its window: say so without reading
  // a page row.
  if (extent->oldest_start_ns >= goal.drop_before_ns && extent->page_bytes <= goal.max_bytes) {
    return true;
  }
  uint64_t bytes = extent->page_bytes;
  while (*budget > 0) {
    const size_t look = std::min(*budget, kPagesPerLook);
    Result<std::vector<PageExtent>> chosen =
        trimmer_.NextToTrim(session, bytes, extent->newest_start_ns, goal, look);
    if (!chosen.ok()) return chosen.status();
    if (chosen->empty()) return true;
    if (!*transaction) {
      Result<SqliteTransaction> begun =
          SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
      if (!begun.ok()) return begun.status();
      transaction->emplace(std::move(begun).value());
    }
    Result<TrimTotals> trimmed = trimmer_.Trim(session, chosen.value());
    if (!trimmed.ok()) return trimmed.status();
    *totals += trimmed.value();
    bytes -= std::min(bytes, trimmed->bytes);
    *budget -= chosen->size();
  }
  return false;
}

}  // namespace optrace::daemon
