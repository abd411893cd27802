// Keeps the database within its size and age bounds, and each uid within
// its quota: deletes whole ended sessions, oldest first, and trims the
// oldest pages of running sessions, fairly between uids.
#ifndef OPTRACE_DAEMON_STORAGE_RETENTION_H_
#define OPTRACE_DAEMON_STORAGE_RETENTION_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "model/span.h"
#include "storage/page_trimmer.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/string_uses.h"

namespace optrace::daemon {

struct RetentionPolicy {
  uint64_t max_bytes = 0;      // main file + WAL; 0 = unbounded
  int64_t max_age_ns = 0;      // by session end time; 0 = unbounded
  uint64_t uid_max_bytes = 0;  // span page bytes of one uid's sessions; 0 = unbounded

  bool enabled() const { return max_bytes > 0 || max_age_ns > 0 || uid_max_bytes > 0; }
};

// What one pass did.
struct RetentionPass {
  uint64_t sessions_deleted = 0;
  // Spans trimmed off running sessions by the caps (max_bytes, uid_max_bytes):
  // the shortfall of their windows.
  uint64_t spans_trimmed = 0;
  // Strings that only the deleted sessions used (StringUses::Collect).
  uint64_t strings_removed = 0;
};

// Holds the prepared statements of retention.
// REQUIRES: `db` has the current schema, and it, `trimmer` and `strings`
// (which write through `db`) outlive this object.
// Thread rules: the thread that writes through `db` (the store's writer),
// between batches (no transaction open).
class Retention {
 public:
  static Result<std::unique_ptr<Retention>> Create(SqliteConnection& db, PageTrimmer& trimmer,
                                                   StringUses& strings, RetentionPolicy policy);

  // One pass, in this order:
  //  1. age: deletes every ended (exited or crashed) session that ended
  //     before `now_ns` - max_age_ns;
  //  2. quota: while a uid's sessions hold more than uid_max_bytes of span
  //     pages, reduces that uid (below);
  //  3. cap: while the database is above max_bytes, reduces the uid whose
  //     sessions hold the most span page bytes.
  // Reducing a uid takes its own oldest data: its ended session that ended
  // first, deleted whole; when it has none, the oldest pages of its biggest
  // running session, trimmed (PageTrimmer::Trim) in steps of pages, never
  // its newest page nor a page of its keeps (PageTrimmer::NextToTrim). So one uid's running session
  // never makes room by deleting another uid's sessions while it holds the most; a uid that can
  // give nothing more is passed over. Trimming takes at most
  // kMaxTrimPagesPerPass pages a pass: once they are spent the pass ends
  // (the next one goes on).
  // A session goes with all its rows and the strings only it used
  // (StringUses::Collect), each in one transaction; spans that
  // the forwarder has not sent, deleted or trimmed, are added to
  // forward_cursor.spans_lost_to_retention in the same transaction. After
  // any deletion or trim, frees the pages (incremental_vacuum) and
  // checkpoints the WAL with truncation so that the files shrink. On an
  // SQLite error, returns it (what was done before it stays done, the
  // database stays consistent).
  Result<RetentionPass> Enforce(int64_t now_ns);

  static constexpr size_t kMaxTrimPagesPerPass = 1024;

 private:
  // A stored session as retention weighs it.
  struct SessionUsage {
    SessionId id = 0;
    uint32_t uid = 0;
    bool running = false;
    uint64_t bytes = 0;  // page_bytes
  };

  Retention(SqliteConnection& db, PageTrimmer& trimmer, StringUses& strings, RetentionPolicy policy)
      : db_(db), trimmer_(trimmer), strings_(strings), policy_(policy) {}
  Status PrepareStatements();
  Result<std::vector<SessionId>> EndedBefore(int64_t cutoff_ns);
  // Every session, ended ones by end time (then id) first.
  Result<std::vector<SessionUsage>> Usage();
  Result<uint64_t> UsedBytes();
  // Deletes `session` whole, counting it and the strings that went with
  // it in `*pass`.
  Status DeleteSession(SessionId session, RetentionPass* pass);
  // Gives up at least some of `uid`'s data towards freeing `excess` bytes
  // (see Enforce), updating `*usage` and `*pass`. Returns false when the
  // uid had nothing left to give (or the trim budget is spent).
  Result<bool> ReduceUid(uint32_t uid, uint64_t excess, std::vector<SessionUsage>* usage,
                         RetentionPass* pass, size_t* trim_budget);
  Status Compact();

  SqliteConnection& db_;
  PageTrimmer& trimmer_;
  StringUses& strings_;
  const RetentionPolicy policy_;
  SqliteStatement select_ended_before_;
  SqliteStatement select_usage_;
  SqliteStatement record_high_water_;
  SqliteStatement count_unforwarded_;
  std::vector<SqliteStatement> delete_rows_;  // one per table, each binding session_id
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_RETENTION_H_
