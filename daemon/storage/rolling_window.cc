#include "storage/rolling_window.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "storage/sqlite_transaction.h"
#include "storage/trim_choice.h"

namespace optrace::daemon {
namespace {

// Pages read per look at a session's oldest: most looks find nothing to
// trim, and a look costs a row read per page.
constexpr size_t kPagesPerLook = 16;

}  // namespace

void RollingWindow::Note(const StoreBatch& batch) {
  if (!limits_.enabled()) return;
  for (const SessionSpans& entry : batch.spans) {
    if (!entry.spans.empty()) noted_.insert(entry.session);
  }
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
  for (SessionId session : within) noted_.erase(session);
  return totals;
}

Result<bool> RollingWindow::TrimSession(SessionId session, size_t* budget,
                                        std::optional<SqliteTransaction>* transaction,
                                        TrimTotals* totals) {
  Result<SessionExtent> extent = trimmer_.Extent(session);
  if (!extent.ok()) return extent.status();
  TrimGoal goal;
  if (limits_.keep_last_ns > 0 &&
      extent->newest_start_ns > std::numeric_limits<int64_t>::min() + limits_.keep_last_ns) {
    goal.drop_before_ns = extent->newest_start_ns - limits_.keep_last_ns;
  }
  if (limits_.keep_last_bytes > 0) goal.max_bytes = limits_.keep_last_bytes;
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
