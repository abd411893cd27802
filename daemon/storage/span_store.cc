// SpanStore over SQLite: a bounded queue in front of one writer thread.
#include "storage/span_store.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "common/clock_now.h"
#include "common/this_thread.h"
#include "storage/batch_writer.h"
#include "storage/database_files.h"
#include "storage/keep_recorder.h"
#include "storage/keep_triggers.h"
#include "storage/page_trimmer.h"
#include "storage/retention.h"
#include "storage/rolling_window.h"
#include "storage/schema.h"
#include "storage/span_reader.h"
#include "storage/sqlite_connection.h"

namespace optrace::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// How long a write waits for another connection's lock (only checkpoints
// and foreign writers take one) before the attempt counts as failed.
constexpr int kWriterBusyTimeoutMs = 1000;
// The WAL is truncated back to this size after a checkpoint resets it, so
// that one burst does not leave a large file behind.
constexpr int64_t kJournalSizeLimitBytes = 64 << 20;
// Retry delays after a failed transaction: doubling from min to max, so
// that writing resumes soon after the disk has room again without
// hammering a broken one.
constexpr auto kMinRetryDelay = std::chrono::milliseconds(100);
constexpr auto kMaxRetryDelay = std::chrono::seconds(2);
// Retention runs after a commit, at most this often.
constexpr auto kRetentionInterval = std::chrono::seconds(3);
// Pages the rolling window trims after one commit at most: more than a
// batch adds (one page per session, more only past 65536 spans), so that
// the windows keep up, and few enough that the next batch does not wait.
constexpr size_t kWindowPagesPerPass = 256;
// How long the destructor keeps committing what is queued.
constexpr auto kShutdownTimeout = std::chrono::seconds(5);

// Only a write the database refuses for its content fails the same way
// again; disk full, I/O errors and locks may pass on a later attempt.
bool WorthRetrying(const Status& status) { return status.code() != Status::Code::kInvalidArgument; }

class SqliteSpanStore final : public SpanStore {
 public:
  // Takes over the open database and the objects that write it, and
  // starts the writer thread (std::system_error when it cannot).
  SqliteSpanStore(StoreOptions options, std::unique_ptr<SqliteConnection> db,
                  std::unique_ptr<StringUses> uses, std::unique_ptr<BatchWriter> writer,
                  std::unique_ptr<KeepRecorder> keeps, std::unique_ptr<KeepTriggers> triggers,
                  std::unique_ptr<PageTrimmer> trimmer, std::unique_ptr<RollingWindow> window,
                  std::unique_ptr<Retention> retention, uint64_t db_bytes)
      : options_(std::move(options)),
        db_(std::move(db)),
        uses_(std::move(uses)),
        writer_(std::move(writer)),
        keeps_(std::move(keeps)),
        triggers_(std::move(triggers)),
        trimmer_(std::move(trimmer)),
        window_(std::move(window)),
        retention_(std::move(retention)) {
    counters_.db_bytes = db_bytes;
    thread_ = std::thread([this] { WriterLoop(); });
  }

  ~SqliteSpanStore() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      stop_deadline_ = Clock::now() + kShutdownTimeout;
    }
    work_cv_.notify_all();
    thread_.join();
  }

  Result<ResumeState> LoadResumeState() override;
  bool TrySubmit(StoreBatch* batch) override;
  Result<KeepRecord> Keep(const KeepRequest& request, int timeout_ms) override;
  Result<WindowLimits> SetWindow(SessionId session, std::optional<WindowLimits> own,
                                 int timeout_ms) override;
  uint64_t CommittedSequence() const override {
    // Acquire: pairs with the release store after each commit.
    return committed_sequence_.load(std::memory_order_acquire);
  }
  std::vector<StoreBatch> TakeRefused() override;
  bool Flush(int timeout_ms) override;
  StoreStatus GetStatus() const override;

 private:
  // Runs `task` on the writer thread between batches and returns its
  // result; kUnavailable when the store is stopping, or when the writer
  // has not run it within `timeout_ms` (it may still run later). `what`
  // names the task in those errors ("record the keep of session 7").
  template <typename T>
  Result<T> OnWriter(std::function<Result<T>()> task, int timeout_ms, const std::string& what);

  void WriterLoop();
  // Runs the tasks queued by OnWriter. REQUIRES: mu_ held by `lock`; it is
  // released while they run.
  void RunPendingTasks(std::unique_lock<std::mutex>& lock);
  // Records one keep and counts it: what every trigger of the writer calls.
  // Writer thread, mu_ not held.
  Result<KeepRecord> RecordKeep(const KeepRequest& request);
  // Takes the head batch off the queue after it was written (`written` ok)
  // or refused for good. REQUIRES: mu_ held.
  void FinishHead(const Status& written);
  // The rolling window, retention (when due) and the size of the files.
  // Writer thread, mu_ not held.
  void AfterCommit();
  // Counts a failed pass of the window or of retention. REQUIRES: mu_ held.
  void NoteHousekeepingError(const char* what, const Status& status);

  const StoreOptions options_;
  // Used only by the writer thread once it has started (the constructor
  // hands them over before starting it).
  const std::unique_ptr<SqliteConnection> db_;
  const std::unique_ptr<StringUses> uses_;  // the writer and retention borrow it
  const std::unique_ptr<BatchWriter> writer_;
  const std::unique_ptr<KeepRecorder> keeps_;
  const std::unique_ptr<KeepTriggers> triggers_;  // crash, latency, runtime, slow step
  const std::unique_ptr<PageTrimmer> trimmer_;    // the window and retention borrow it
  const std::unique_ptr<RollingWindow> window_;   // never null; trims nothing without windows
  const std::unique_ptr<Retention> retention_;    // null without a policy
  Clock::time_point next_retention_ = Clock::time_point::min();

  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // writer: a batch or a task arrived, or stop
  std::condition_variable progress_cv_;  // Flush: a batch left the queue
  // Invariant: batches leave only from the front, only by the writer
  // thread, which reads the front batch without mu_ while writing it
  // (push_back never moves existing deque elements).
  std::deque<StoreBatch> queue_;                     // GUARDED_BY(mu_)
  std::deque<std::function<void()>> pending_tasks_;  // GUARDED_BY(mu_): OnWriter's
  std::vector<StoreBatch> refused_;                  // GUARDED_BY(mu_): for TakeRefused
  uint64_t submitted_ = 0;                           // GUARDED_BY(mu_): batches accepted
  uint64_t finished_ = 0;            // GUARDED_BY(mu_): batches committed or dropped
  uint64_t queued_spans_ = 0;        // GUARDED_BY(mu_)
  StoreStatus counters_;             // GUARDED_BY(mu_): the cumulative fields
  bool stopping_ = false;            // GUARDED_BY(mu_)
  Clock::time_point stop_deadline_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> committed_sequence_{0};
  std::thread thread_;  // last: started once everything above exists
};

Result<ResumeState> SqliteSpanStore::LoadResumeState() {
  // A connection of its own: the writer's belongs to the writer thread.
  Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(options_.db_path);
  if (!reader.ok()) return reader.status();
  Result<SqliteTransaction> snapshot = reader.value()->Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  ResumeState state;
  Result<std::vector<std::pair<StringId, std::string>>> strings = reader.value()->LoadStrings();
  if (!strings.ok()) return strings.status();
  state.strings = std::move(strings).value();
  if (!state.strings.empty()) state.max_string_id = state.strings.back().first;  // id order
  Result<SessionId> max_session = reader.value()->MaxSessionId();
  if (!max_session.ok()) return max_session.status();
  state.max_session_id = max_session.value();
  Result<std::vector<SessionRecord>> running = reader.value()->RunningSessions();
  if (!running.ok()) return running.status();
  state.running_sessions = std::move(running).value();
  for (const SessionRecord& session : state.running_sessions) {
    Result<std::vector<RingCursor>> cursors = reader.value()->RingCursors(session.id);
    if (!cursors.ok()) return cursors.status();
    state.cursors[session.id] = std::move(cursors).value();
    Result<std::vector<HalfOp>> halves = reader.value()->OpenHalves(session.id);
    if (!halves.ok()) return halves.status();
    state.open_halves[session.id] = std::move(halves).value();
  }
  return state;
}

bool SqliteSpanStore::TrySubmit(StoreBatch* batch) {
  const size_t spans = batch->SpanCount();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= options_.max_queued_batches) {
      ++counters_.batches_refused;
      return false;
    }
    queue_.push_back(std::move(*batch));
    queued_spans_ += spans;
    ++submitted_;
  }
  work_cv_.notify_one();
  return true;
}

template <typename T>
Result<T> SqliteSpanStore::OnWriter(std::function<Result<T>()> task, int timeout_ms,
                                    const std::string& what) {
  // Shared with the task, which may run after the caller stopped waiting.
  auto done = std::make_shared<std::promise<Result<T>>>();
  std::future<Result<T>> result = done->get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return Status::Unavailable("store: stopping, did not " + what);
    pending_tasks_.push_back([task = std::move(task), done] { done->set_value(task()); });
  }
  work_cv_.notify_one();
  if (result.wait_for(std::chrono::milliseconds(std::max(timeout_ms, 0))) !=
      std::future_status::ready) {
    return Status::Unavailable("store: the writer did not " + what + " within " +
                               std::to_string(timeout_ms) + " ms; it may still do it");
  }
  return result.get();
}

Result<KeepRecord> SqliteSpanStore::Keep(const KeepRequest& request, int timeout_ms) {
  return OnWriter<KeepRecord>([this, request] { return RecordKeep(request); }, timeout_ms,
                              "record the keep of session " + std::to_string(request.session));
}

Result<WindowLimits> SqliteSpanStore::SetWindow(SessionId session, std::optional<WindowLimits> own,
                                                int timeout_ms) {
  return OnWriter<WindowLimits>([this, session, own] { return window_->SetOwn(session, own); },
                                timeout_ms, "set the window of session " + std::to_string(session));
}

void SqliteSpanStore::RunPendingTasks(std::unique_lock<std::mutex>& lock) {
  std::deque<std::function<void()>> pending;
  pending.swap(pending_tasks_);
  lock.unlock();
  for (const std::function<void()>& task : pending) task();
  lock.lock();
}

Result<KeepRecord> SqliteSpanStore::RecordKeep(const KeepRequest& request) {
  Result<KeepRecord> kept =
      keeps_->Record(request, static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME)));
  std::lock_guard<std::mutex> lock(mu_);
  if (kept.ok()) {
    ++counters_.keeps_recorded;
  } else if (kept.status().code() == Status::Code::kResourceExhausted) {
    ++counters_.keeps_refused_by_budget;
  }
  return kept;
}

std::vector<StoreBatch> SqliteSpanStore::TakeRefused() {
  std::vector<StoreBatch> refused;
  std::lock_guard<std::mutex> lock(mu_);
  refused.swap(refused_);
  return refused;
}

bool SqliteSpanStore::Flush(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = submitted_;
  return progress_cv_.wait_for(lock, std::chrono::milliseconds(std::max(timeout_ms, 0)),
                               [&] { return finished_ >= target; });
}

StoreStatus SqliteSpanStore::GetStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  StoreStatus status = counters_;
  status.queued_batches = queue_.size();
  status.queued_spans = queued_spans_;
  status.committed_sequence = CommittedSequence();
  return status;
}

void SqliteSpanStore::WriterLoop() {
  NameThisThread("optrace-writer");
  Clock::duration retry_delay = kMinRetryDelay;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty() || !pending_tasks_.empty(); });
    // A task waits for no batch: its caller is blocked on it.
    if (!pending_tasks_.empty()) {
      RunPendingTasks(lock);
      continue;
    }
    if (queue_.empty()) return;  // stopping, and everything is committed
    // What is still queued at the deadline is given up; a restarted daemon
    // finds those events in the rings again or counts them as lost.
    if (stopping_ && Clock::now() >= stop_deadline_) return;
    const StoreBatch& batch = queue_.front();
    lock.unlock();
    const Status written = writer_->Write(batch);
    if (written.ok()) window_->Note(batch);
    if (written.ok() && options_.committed_observer != nullptr) {
      options_.committed_observer->OnCommitted(batch);
    }
    // Before the window's next pass, which would trim what they keep. A
    // crash keep refused over a budget is counted; writing goes on either way.
    if (written.ok()) {
      for (const KeepRequest& keep : triggers_->Keeps(batch)) RecordKeep(keep);
    }
    lock.lock();
    if (written.ok() || !WorthRetrying(written)) {
      FinishHead(written);
      retry_delay = kMinRetryDelay;
      if (written.ok() && !stopping_) {
        lock.unlock();
        AfterCommit();
        lock.lock();
      }
      continue;
    }
    // The batch stays at the head and is written again after a delay; a
    // stop request cuts the delay short to honour its deadline.
    ++counters_.write_errors;
    counters_.last_error = written.message();
    const bool was_stopping = stopping_;
    Clock::time_point retry_at = Clock::now() + retry_delay;
    if (was_stopping) retry_at = std::min(retry_at, stop_deadline_);
    work_cv_.wait_until(lock, retry_at, [&] { return stopping_ != was_stopping; });
    retry_delay = std::min<Clock::duration>(retry_delay * 2, kMaxRetryDelay);
  }
}

void SqliteSpanStore::FinishHead(const Status& written) {
  StoreBatch& batch = queue_.front();
  const size_t spans = batch.SpanCount();
  if (written.ok()) {
    ++counters_.batches_committed;
    counters_.spans_committed += spans;
    counters_.last_error.clear();
    // Release: the batch's transaction has committed; pairs with the
    // acquire load in CommittedSequence.
    committed_sequence_.store(
        std::max(committed_sequence_.load(std::memory_order_relaxed), batch.sequence),
        std::memory_order_release);
  } else {
    ++counters_.write_errors;
    ++counters_.batches_dropped;
    counters_.last_error =
        "batch " + std::to_string(batch.sequence) + " dropped: " + written.message();
    // Before a later batch can commit and move committed_sequence_ past
    // it: TakeRefused's promise.
    refused_.push_back(std::move(batch));
  }
  queued_spans_ -= spans;
  queue_.pop_front();
  ++finished_;
  progress_cv_.notify_all();
}

void SqliteSpanStore::NoteHousekeepingError(const char* what, const Status& status) {
  ++counters_.write_errors;
  counters_.last_error = std::string(what) + ": " + status.message();
}

void SqliteSpanStore::AfterCommit() {
  {
    Result<TrimTotals> trimmed = window_->Enforce(kWindowPagesPerPass);
    std::lock_guard<std::mutex> lock(mu_);
    if (trimmed.ok()) {
      counters_.spans_trimmed_by_window += trimmed->spans;
    } else {
      NoteHousekeepingError("rolling window", trimmed.status());
    }
  }
  if (retention_ != nullptr && Clock::now() >= next_retention_) {
    next_retention_ = Clock::now() + kRetentionInterval;
    Result<RetentionPass> pass =
        retention_->Enforce(static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME)));
    std::lock_guard<std::mutex> lock(mu_);
    if (pass.ok()) {
      counters_.sessions_deleted_by_retention += pass->sessions_deleted;
      counters_.strings_removed_by_retention += pass->strings_removed;
      counters_.spans_trimmed_by_cap += pass->spans_trimmed;
    } else {
      NoteHousekeepingError("retention", pass.status());
    }
  }
  Result<uint64_t> bytes = db_->BytesOnDisk();
  if (bytes.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.db_bytes = bytes.value();
  }
}

// Per-connection settings of the writer (the file-level ones belong to
// PrepareSchema).
Status ConfigureWriter(SqliteConnection& db) {
  Status synchronous = db.Exec("PRAGMA synchronous = NORMAL");
  if (!synchronous.ok()) return synchronous;
  return db.Exec("PRAGMA journal_size_limit = " + std::to_string(kJournalSizeLimitBytes));
}

Status CheckOptions(const StoreOptions& options) {
  if (options.db_path.empty()) return Status::InvalidArgument("store: db_path is empty");
  if (options.max_queued_batches == 0) {
    return Status::InvalidArgument("store: max_queued_batches must be at least 1");
  }
  if (options.keep_last_ns < 0) {
    return Status::InvalidArgument("store: keep_last_ns " + std::to_string(options.keep_last_ns) +
                                   " is negative (0 keeps everything)");
  }
  if (options.retention_max_age_ns < 0) {
    return Status::InvalidArgument("store: retention_max_age_ns " +
                                   std::to_string(options.retention_max_age_ns) +
                                   " is negative (0 means unbounded)");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SpanStore>> SpanStore::Open(const StoreOptions& options) {
  Status valid = CheckOptions(options);
  if (!valid.ok()) return valid;
  const std::filesystem::path folder = std::filesystem::path(options.db_path).parent_path();
  if (!folder.empty()) {
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    if (error) {
      return Status::IoError(options.db_path + ": cannot create folder " + folder.string() + ": " +
                             error.message());
    }
  }
  if (Status owner_only = MakeDatabaseFilesOwnerOnly(options.db_path); !owner_only.ok()) {
    return owner_only;
  }
  Result<std::unique_ptr<SqliteConnection>> db = SqliteConnection::Open(
      options.db_path, SqliteOpenMode::kReadWriteCreate, kWriterBusyTimeoutMs);
  if (!db.ok()) return db.status();
  for (Status (*step)(SqliteConnection&) : {&PrepareSchema, &ConfigureWriter}) {
    Status done = step(*db.value());
    if (!done.ok()) return done;
  }
  Result<std::unique_ptr<StringUses>> uses = StringUses::Create(*db.value());
  if (!uses.ok()) return uses.status();
  Result<std::unique_ptr<BatchWriter>> writer =
      BatchWriter::Create(*db.value(), options.sketch_write_interval, uses.value().get());
  if (!writer.ok()) return writer.status();
  // Keeps may hold at most half of the database's cap, so that the cap
  // always has unkept data to trim or ended sessions to delete.
  const KeepBudget budget{.session_max_bytes = options.keep_session_max_bytes,
                          .uid_max_bytes = options.keep_uid_max_bytes,
                          .database_max_bytes = options.retention_max_bytes / 2,
                          .max_ahead_ns = options.keep_after_ns};
  Result<std::unique_ptr<KeepRecorder>> keeps = KeepRecorder::Create(*db.value(), budget);
  if (!keeps.ok()) return keeps.status();
  Result<std::unique_ptr<KeepTriggers>> triggers = KeepTriggers::Create(
      *db.value(), {options.keep_before_ns, options.keep_after_ns, options.keep_rules});
  if (!triggers.ok()) return triggers.status();
  const RetentionPolicy policy{options.retention_max_bytes, options.retention_max_age_ns,
                               options.uid_max_bytes};
  Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db.value());
  if (!trimmer.ok()) return trimmer.status();
  // Always: a session may set a window of its own when the daemon has none.
  auto window = std::make_unique<RollingWindow>(
      *db.value(), *trimmer.value(), WindowLimits{options.keep_last_ns, options.keep_last_bytes});
  if (Status loaded = window->LoadOwnWindows(); !loaded.ok()) return loaded;
  std::unique_ptr<Retention> retention;
  if (policy.enabled()) {
    Result<std::unique_ptr<Retention>> created =
        Retention::Create(*db.value(), *trimmer.value(), *uses.value(), policy);
    if (!created.ok()) return created.status();
    retention = std::move(created).value();
  }
  Result<uint64_t> bytes = db.value()->BytesOnDisk();
  if (!bytes.ok()) return bytes.status();
  try {
    return std::unique_ptr<SpanStore>(new SqliteSpanStore(
        options, std::move(db).value(), std::move(uses).value(), std::move(writer).value(),
        std::move(keeps).value(), std::move(triggers).value(), std::move(trimmer).value(),
        std::move(window), std::move(retention), bytes.value()));
  } catch (const std::system_error& e) {
    return Status::Unavailable(options.db_path + ": cannot start the writer thread: " + e.what());
  }
}

}  // namespace optrace::daemon
