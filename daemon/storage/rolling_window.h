// The rolling window of running sessions: a session keeps its most recent
// spans at full detail, bounded by a duration and by bytes, and the writer
// trims its oldest span pages as new ones arrive.
#ifndef OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_
#define OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "common/status.h"
#include "model/store_batch.h"
#include "model/window_limits.h"
#include "storage/page_trimmer.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_transaction.h"

namespace optrace::daemon {

// Trims the windows of the sessions that received spans, a bounded number
// of pages per pass, between batches. Each running session has the
// daemon's window or its own (SetOwn, stored in its sessions row).
// REQUIRES: `db` and `trimmer` (which writes through `db`) outlive this
// object. Thread rules: the store's writer thread, between batches (no
// transaction open).
class RollingWindow {
 public:
  // `defaults`: the daemon's keep_last and keep_last_bytes, for every
  // session without a window of its own.
  RollingWindow(SqliteConnection& db, PageTrimmer& trimmer, WindowLimits defaults)
      : db_(db), trimmer_(trimmer), defaults_(defaults) {}

  // Reads the own windows of the running sessions stored before (a
  // restarted daemon's). REQUIRES: before the first Note.
  Status LoadOwnWindows();

  // Remembers the sessions that the committed `batch` added spans to: only
  // a session that receives spans can grow past its window, so a session
  // stored before (or ended before this daemon started) is never trimmed,
  // and one that ended is brought within its window once more, then left
  // (and its own window forgotten here; its row keeps it).
  void Note(const StoreBatch& batch);

  // Gives running `session` a window of its own (`own`), or the daemon's
  // again (nullopt), stored in its sessions row; the next Enforce brings
  // it within. Returns the window now in force for it. kNotFound when no
  // such session is stored, kFailedPrecondition when it has ended (its
  // window no longer moves).
  Result<WindowLimits> SetOwn(SessionId session, std::optional<WindowLimits> own);

  // The window in force for `session`: its own, else the daemon's.
  WindowLimits LimitsOf(SessionId session) const;

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
  const WindowLimits defaults_;
  std::map<SessionId, WindowLimits> own_;  // running sessions' own windows
  std::set<SessionId> noted_;
  std::set<SessionId> ended_;  // noted as ended: forgotten once within
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_ROLLING_WINDOW_H_
