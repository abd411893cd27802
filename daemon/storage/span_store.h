// The daemon's SQLite storage: one writer thread behind a bounded queue of
// StoreBatch, so that a slow disk never stalls draining.
#ifndef OPTRACE_DAEMON_STORAGE_SPAN_STORE_H_
#define OPTRACE_DAEMON_STORAGE_SPAN_STORE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "model/keep.h"
#include "model/store_batch.h"
#include "model/window_limits.h"
#include "storage/committed_batch_observer.h"

namespace optrace::daemon {

struct StoreOptions {
  std::string db_path;                  // created (with its folder) if absent
  size_t max_queued_batches = 64;       // Submit refuses beyond this
  uint64_t retention_max_bytes = 0;     // 0 = unbounded
  int64_t retention_max_age_ns = 0;     // 0 = unbounded; by session end time
  uint64_t uid_max_bytes = 0;           // span page bytes per uid; 0 = unbounded
  int64_t keep_last_ns = 0;             // rolling window of running sessions; 0 = all
  uint64_t keep_last_bytes = 0;         // page bytes per session's window; 0 = unbounded
  uint64_t keep_session_max_bytes = 0;  // what one session's keeps hold; 0 = unbounded
  uint64_t keep_uid_max_bytes = 0;      // what one uid's keeps hold; 0 = unbounded
  // How far a keep may reach past its session's newest stored span; 0 = no bound.
  int64_t keep_after_ns = 0;
  // A session that ends crashed keeps this much before its end (CrashKeeps); 0 = none.
  int64_t keep_before_ns = 0;
  // Latency rules: a matching op keeps keep_before before it and keep_after after it.
  std::vector<KeepRule> keep_rules = {};
  // How long op_aggregates' sketches may lag their totals (BatchWriter);
  // 0 writes them with every batch (tests that read them after Flush).
  std::chrono::milliseconds sketch_write_interval{1000};
  // Told of every committed batch on the writer thread (the metrics
  // registry); null = nobody. Borrowed: must outlive the store.
  CommittedBatchObserver* committed_observer = nullptr;
};

// Everything a (re)starting daemon needs to continue where the last one
// stopped, read once before draining starts.
struct ResumeState {
  SessionId max_session_id = 0;
  StringId max_string_id = 0;
  std::vector<std::pair<StringId, std::string>> strings;  // the whole dictionary
  std::vector<SessionRecord> running_sessions;            // state == running
  std::map<SessionId, std::vector<RingCursor>> cursors;   // of running sessions
  std::map<SessionId, std::vector<HalfOp>> open_halves;   // of running sessions
};

// Health and backlog, for GetStatus and logs.
struct StoreStatus {
  uint64_t batches_committed = 0;
  uint64_t spans_committed = 0;
  uint64_t batches_refused = 0;  // Submit returned false (queue full)
  uint64_t queued_batches = 0;   // writer backlog now
  uint64_t queued_spans = 0;
  uint64_t committed_sequence = 0;  // highest StoreBatch::sequence committed
  uint64_t write_errors = 0;        // failed transactions (retried, or dropped below)
  uint64_t batches_dropped = 0;     // refused by the database itself (e.g. a constraint):
                                    // not retried, since the same write fails again;
                                    // Flush counts them as done, TakeRefused returns them
  std::string last_error;           // "" when the last write succeeded
  uint64_t db_bytes = 0;            // main file + WAL
  uint64_t sessions_deleted_by_retention = 0;
  // Strings removed with them: those no stored session uses any more.
  uint64_t strings_removed_by_retention = 0;
  uint64_t spans_trimmed_by_window = 0;  // older than keep_last, or past keep_last_bytes
  // Trimmed off running sessions by retention_max_bytes or uid_max_bytes:
  // what their windows fell short of keep_last.
  uint64_t spans_trimmed_by_cap = 0;
  uint64_t keeps_recorded = 0;           // keeps stored (merged or not), every trigger
  uint64_t keeps_refused_by_budget = 0;  // keeps over a keep budget, every trigger
};

class SpanStore {
 public:
  virtual ~SpanStore() = default;

  // Opens or creates the database (its files 0600 whatever the umask:
  // storage/database_files.h), migrates its schema, and starts the writer
  // thread. Errors name the path and the cause.
  static Result<std::unique_ptr<SpanStore>> Open(const StoreOptions& options);

  // Reads what a restarted daemon needs. REQUIRES: before the first Submit.
  virtual Result<ResumeState> LoadResumeState() = 0;

  // Queues `batch` for the writer, moving it out of `*batch`, when the
  // queue has room; never blocks. Returns false when the queue is full and
  // then leaves `*batch` untouched, so that the caller can account for what
  // it sheds without having copied it beforehand. Batches commit in
  // submission order, each in one transaction.
  virtual bool TrySubmit(StoreBatch* batch) = 0;

  // TrySubmit for a batch the caller gives up either way.
  bool Submit(StoreBatch batch) { return TrySubmit(&batch); }

  // Records `request` on the writer thread, between batches
  // (KeepRecorder::Record: merged, measured, within the keep budgets), and
  // returns the stored keep. Blocks the caller until it is recorded or
  // `timeout_ms` passes: then kUnavailable, and the keep may still be
  // recorded later. kUnavailable once the store is stopping. Thread-safe.
  virtual Result<KeepRecord> Keep(const KeepRequest& request, int timeout_ms) = 0;

  // Gives running `session` a rolling window of its own (`own`; nullopt:
  // the daemon's keep_last and keep_last_bytes again), on the writer
  // thread between batches (RollingWindow::SetOwn), and returns the window
  // now in force for it. Blocks like Keep; kNotFound for no such session,
  // kFailedPrecondition for one that has ended. Thread-safe.
  virtual Result<WindowLimits> SetWindow(SessionId session, std::optional<WindowLimits> own,
                                         int timeout_ms) = 0;

  // The highest sequence committed so far (thread-safe, lock-free). A
  // batch the database refused does not count as committed, but a later
  // one that commits moves this past it: TakeRefused says which.
  virtual uint64_t CommittedSequence() const = 0;

  // Hands back, whole and in the order they were refused, the batches the
  // database refused for their content since the last call (SqliteError's
  // kInvalidArgument: a constraint, a value too big; not retried, since
  // the same write fails again), so that the caller can count what they
  // held and submit again what must not be lost (records, cursors,
  // strings). Every batch refused before a CommittedSequence() call
  // returned S is among those returned by a call made after it. The store
  // keeps them until taken: REQUIRES the submitter to call it as often as
  // it looks at CommittedSequence. Thread-safe.
  virtual std::vector<StoreBatch> TakeRefused() = 0;

  // Blocks until every batch submitted so far is committed, or `timeout_ms`
  // passes (then returns false). For shutdown and tests.
  virtual bool Flush(int timeout_ms) = 0;

  virtual StoreStatus GetStatus() const = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_SPAN_STORE_H_
