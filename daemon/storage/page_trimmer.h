// Trims span pages off a session: the one step the rolling window and
// retention both take when they shrink a session without deleting it.
#ifndef OPTRACE_DAEMON_STORAGE_PAGE_TRIMMER_H_
#define OPTRACE_DAEMON_STORAGE_PAGE_TRIMMER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/trim_choice.h"

namespace optrace::daemon {

// What a session holds now, as trimming measures it.
struct SessionExtent {
  uint64_t page_bytes = 0;      // sessions.page_bytes: its pages' data bytes
  int64_t newest_start_ns = 0;  // the latest last start of its pages; 0 without pages
  int64_t oldest_start_ns = 0;  // the earliest last start of its pages; 0 without pages
};

// What one Trim removed.
struct TrimTotals {
  uint64_t pages = 0;
  uint64_t spans = 0;
  uint64_t instants = 0;
  uint64_t bytes = 0;  // page data bytes

  TrimTotals& operator+=(const TrimTotals& other) {
    pages += other.pages;
    spans += other.spans;
    instants += other.instants;
    bytes += other.bytes;
    return *this;
  }
};

// Holds the prepared statements of trimming.
// REQUIRES: `db` has the current schema and outlives this object.
// Thread rules: the thread that writes through `db` (the store's writer).
// Errors: SQLite's (see SqliteError).
class PageTrimmer {
 public:
  static Result<std::unique_ptr<PageTrimmer>> Create(SqliteConnection& db);

  // The bytes and the newest and oldest last starts of `session`'s pages
  // (zeros for an unknown one), from the sessions row and two index seeks.
  Result<SessionExtent> Extent(SessionId session);

  // The next pages of `session` to trim towards `goal`, at most `limit`
  // (ChoosePagesToTrim over its oldest pages, by last start then id), given
  // that it holds `session_bytes` and its newest span started at
  // `newest_start_ns`. Passes over the pages of its keeps (never trimmed),
  // reading on past them `limit` pages at a time, so that a kept range
  // among its oldest pages does not stop the trimming of newer ones.
  // Returns no page when the goal, the newest page or the pages' end stop it.
  Result<std::vector<PageExtent>> NextToTrim(SessionId session, uint64_t session_bytes,
                                             int64_t newest_start_ns, const TrimGoal& goal,
                                             size_t limit);

  // Deletes `pages` (of `session`, as NextToTrim gave them) and the
  // session's instants up to the newest last start among them but for
  // those in its keeps (instants are trimmed with the spans of their time); adds what went to the
  // session's spans_trimmed and instants_trimmed, moves its
  // trimmed_before_ns up to that last start, and takes the bytes off its
  // page_bytes. Spans of pages the forwarder has not sent (ids above
  // forward_cursor.page_id) are added to forward_cursor.spans_lost_to_retention,
  // as retention's are. REQUIRES: a transaction is open (the caller commits
  // or rolls back all of it).
  Result<TrimTotals> Trim(SessionId session, std::span<const PageExtent> pages);

 private:
  explicit PageTrimmer(SqliteConnection& db) : db_(db) {}
  Status PrepareStatements();
  // Up to `limit` pages of `session`, oldest first, after the first `skip`.
  Result<std::vector<PageExtent>> OldestPages(SessionId session, size_t limit, size_t skip);

  SqliteConnection& db_;
  SqliteStatement select_extent_;
  SqliteStatement select_oldest_;
  SqliteStatement select_keeps_;
  SqliteStatement delete_page_;
  SqliteStatement count_unforwarded_;
  SqliteStatement delete_instants_;
  SqliteStatement update_session_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_PAGE_TRIMMER_H_
