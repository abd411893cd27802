// The rolling window of running sessions: a session keeps its most recent
// spans at full detail, bounded by a duration and by bytes, and the writer
// trims its oldest span pages as new ones arrive.
#ifndef OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_
#define OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>

#include "common/status.h"
#include "model/store_batch.h"
#include "storage/page_trimmer.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_transaction.h"

namespace optrace::daemon {

// The bounds of a window; 0 = no bound of that kind.
struct WindowLimits {
  // Keep the pages whose newest span started at most this long before the
  // session's newest span (not the clock: a session that went quiet, or
  // hangs, keeps its last window of activity).
  int64_t keep_last_ns = 0;
  uint64_t keep_last_bytes = 0;  // page data bytes per session

  bool enabled() const { return keep_last_ns > 0 || keep_last_bytes > 0; }
};

// Trims the windows of the sessions that received spans, a bounded number
// of pages per pass, between batches.
// REQUIRES: `db` and `trimmer` (which writes through `db`) outlive this
// object. Thread rules: the store's writer thread, between batches (no
// transaction open).
class RollingWindow {
 public:
  RollingWindow(SqliteConnection& db, PageTrimmer& trimmer, WindowLimits limits)
      : db_(db), trimmer_(trimmer), limits_(limits) {}

  // Remembers the sessions that the committed `batch` added spans to: only
  // a session that receives spans can grow past its window, so a session
  // stored before (or ended before this daemon started) is never trimmed,
  // and one that ended is brought within its window once more, then left.
  void Note(const StoreBatch& batch);

  // One pass over the sessions noted and not yet within their window:
  // trims at most `max_pages` of their oldest pages but for those of their
  // keeps (PageTrimmer::NextToTrim, Trim), all in one transaction, and forgets each session
  // that is within its window. A session whose pages the budget did not
  // reach stays noted for the next pass. Returns what was trimmed; on an
  // SQLite error nothing of this pass is trimmed, and every session stays
  // noted.
  Result<TrimTotals> Enforce(size_t max_pages);

 private:
  // Trims `session` towards its window within `*budget` pages, counting
  // into `*totals`; opens `*transaction` before the first trim. Returns
  // whether the session is within its window now.
  Result<bool> TrimSession(SessionId session, size_t* budget,
                           std::optional<SqliteTransaction>* transaction, TrimTotals* totals);

  SqliteConnection& db_;
  PageTrimmer& trimmer_;
  const WindowLimits limits_;
  std::set<SessionId> noted_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_
