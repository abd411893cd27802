// Step records: each committed step's number, start and duration, kept
// apart from its spans so that a session's steps outlive the rolling
// window that trims those spans (GetSteps lists the steps whose spans are
// gone from them, as trimmed). A step is recorded in the transaction of
// the batch that commits its span: an optrace.step span (explicit steps),
// or, in a session without those, a PyTorch ProfilerStep# range
// (StepSpanNames). Steps found only at query time (optimizer ranges,
// ranges marked as steps) have no records.
//
// Bounded: a session keeps its last `max_per_session` records; older ones
// are deleted as newer commit and counted in its `folded` count.
#ifndef OPTRACE_DAEMON_STORAGE_STEP_RECORD_WRITER_H_
#define OPTRACE_DAEMON_STORAGE_STEP_RECORD_WRITER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "model/store_batch.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/step_records.h"
#include "storage/step_span_names.h"

namespace optrace::daemon {

// The ProfilerStep# counters a session's writer remembers, newest, waiting
// for their ranges to commit (a range's counter comes when it begins).
inline constexpr size_t kProfilerNumbersKept = 64;

// Writes the step records of each batch.
// REQUIRES: `db` has the current schema (PrepareSchema) and outlives the
// writer. Thread rules: one thread (the store's writer thread).
class StepRecordWriter {
 public:
  // Prepares the statements and learns the step names' ids from the stored
  // dictionary. Errors: SQLite's.
  static Result<std::unique_ptr<StepRecordWriter>> Create(
      SqliteConnection& db, uint64_t max_per_session = kMaxStepRecordsPerSession);

  // Inside the batch's transaction: records each step the batch's spans
  // commit. A session's records are of one kind: its first explicit step
  // deletes the profiler records it had (explicit steps win, as in step
  // detection), and profiler steps of a session with explicit ones are
  // not recorded. Explicit steps are numbered after the session's last
  // record (folded ones counted), by start within the batch; a
  // ProfilerStep# range takes the value of its counter (one of the last
  // kProfilerNumbersKept the session sent), else the next number. A step
  // whose start and number a record already has is not recorded twice.
  // Past max_per_session records, the session's oldest are deleted and
  // counted as folded. Errors: SQLite's (the transaction rolls back).
  Status Write(const StoreBatch& batch);

  // After the batch's transaction. Committed forgets the sessions the
  // batch ended; RolledBack forgets the cached counts (read again).
  void Committed(const StoreBatch& batch);
  void RolledBack() { counts_.clear(); }

 private:
  // A session's step_record_counts row, as committed plus this batch's.
  struct SessionCounts {
    StepSpanKind source = StepSpanKind::kExplicit;
    uint64_t recorded = 0;  // rows in step_records
    uint64_t folded = 0;
  };
  // A step of the batch, before it is numbered.
  struct CommittedStep {
    int64_t start_ns = 0;
    uint64_t op_id = 0;
    uint64_t duration_ns = 0;
    StepSpanKind kind = StepSpanKind::kExplicit;
  };
  // A ProfilerStep# counter: the range (its op id) and its value.
  struct ProfilerNumber {
    uint64_t op_id = 0;
    int64_t number = 0;
  };

  StepRecordWriter(SqliteConnection& db, StepSpanNames names, uint64_t max_per_session)
      : db_(db), names_(std::move(names)), max_per_session_(max_per_session) {}
  Status PrepareStatements();
  // Remembers the batch's ProfilerStep# counters.
  void NoteProfilerNumbers(const StoreBatch& batch);
  // Records `steps` (one session's, of one kind, by start).
  Status RecordSteps(SessionId session, const std::vector<CommittedStep>& steps);
  // The session's counts, read once from the database.
  Result<SessionCounts*> CountsOf(SessionId session);
  // The number a profiler range's counter gave it; nullopt when not
  // remembered (or negative).
  std::optional<uint64_t> ProfilerNumberOf(SessionId session, uint64_t op_id) const;
  // Deletes the session's oldest records past the bound, counting them.
  Status FoldOldest(SessionId session, SessionCounts& counts);

  SqliteConnection& db_;
  StepSpanNames names_;
  const uint64_t max_per_session_;
  SqliteStatement select_counts_;
  SqliteStatement upsert_counts_;
  SqliteStatement insert_record_;
  SqliteStatement delete_session_records_;
  SqliteStatement delete_oldest_;
  std::unordered_map<SessionId, SessionCounts> counts_;
  std::unordered_map<SessionId, std::deque<ProfilerNumber>> profiler_numbers_;
  std::vector<CommittedStep> steps_;  // scratch, one session's at a time
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_STEP_RECORD_WRITER_H_
