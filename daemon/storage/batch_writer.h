// Writes one StoreBatch into the database in one transaction.
#ifndef OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_
#define OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "model/store_batch.h"
#include "storage/listing_store.h"
#include "storage/op_aggregate.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"
#include "storage/step_record_writer.h"
#include "storage/string_uses.h"

namespace optrace::daemon {

// Holds the prepared statements of the write path, reused for every batch.
// REQUIRES: `db` has the current schema (PrepareSchema) and outlives the
// writer. Thread rules: one thread (the store's writer thread).
class BatchWriter {
 public:
  // Prepares the statements; errors are SQLite's (see SqliteError).
  // `sketch_write_interval`: see Write. `uses` records each batch's
  // string uses (REQUIRES: it outlives the writer).
  static Result<std::unique_ptr<BatchWriter>> Create(
      SqliteConnection& db, std::chrono::milliseconds sketch_write_interval, StringUses* uses);

  // Commits all of `batch` in one transaction, or nothing: on any error the
  // transaction is rolled back and the error returned (see SqliteError for
  // which codes are worth a retry). Each SessionSpans entry becomes one span
  // page (more above span_page::kMaxSpansPerPage spans), its spans in start
  // order and its bytes added to its sessions.page_bytes; its spans are also
  // added to op_aggregates: the totals in the same
  // transaction, the duration sketches (a few hundred bytes to a few KiB a
  // row, too many to rewrite with every 20 ms batch) at most every
  // `sketch_write_interval` (Create), with a batch that ends a session,
  // when kMaxUnwrittenSketches rows wait, and before a session's rows are
  // folded into its `other` row past kMaxAggregateGroups. Until then a
  // row's sketch lags its totals (its Count() is below ok_count, which
  // readers see); a running session that goes quiet gets its last sketches
  // with its next batch or its end, and a daemon that dies loses the lag
  // from the sketches for good, never from the totals. Its listings are
  // stored once each (ListingWriter::Insert: one its session already holds
  // is left alone), its sessions' string uses recorded (StringUses), and
  // the steps it commits recorded (StepRecordWriter).
  Status Write(const StoreBatch& batch);

  // How many rows' sketches may wait (memory: one sketch each).
  static constexpr size_t kMaxUnwrittenSketches = 20'000;

 private:
  BatchWriter(SqliteConnection& db, std::chrono::milliseconds sketch_write_interval,
              StringUses* uses)
      : db_(db), uses_(uses), sketch_write_interval_(sketch_write_interval) {}
  Status PrepareStatements();
  Status WriteInTransaction(const StoreBatch& batch);
  Status WriteStrings(const StoreBatch& batch);
  Status WriteSessions(const StoreBatch& batch);
  Status WriteSpans(const StoreBatch& batch);
  // Writes one page and returns its data bytes.
  Result<uint64_t> WritePage(SessionId session, std::span<const Span> spans);
  Status WriteAggregates(const StoreBatch& batch);
  // Adds `added` (and `groups_folded`) to `key`'s totals; *is_new says
  // whether the row was created.
  Status UpsertTotals(const OpAggregateKey& key, const OpAggregate& added, uint64_t groups_folded,
                      bool* is_new);
  // Merges every key's unwritten and this batch's durations into its row.
  Status WriteSketches();
  // Merges `sketch` into `key`'s stored sketch; nothing when the row is gone.
  Status MergeSketch(const OpAggregateKey& key, DurationSketch sketch);
  // The cached count of `session`'s rows but `other`, read once from the
  // database (less the row just created, which the caller counts).
  Result<uint64_t*> SessionGroups(SessionId session);
  // Folds `session`'s rows with the least total time into its `other`
  // row until kAggregateGroupsAfterFold are left. REQUIRES: its sketches
  // are written.
  Status FoldSmallestGroups(SessionId session);
  Status WriteInstants(const StoreBatch& batch);
  Status WriteHalves(const StoreBatch& batch);
  Status WriteCursors(const StoreBatch& batch);
  Status WriteListings(const StoreBatch& batch);
  Status WriteStringUses(const StoreBatch& batch);
  Status WriteStepRecords(const StoreBatch& batch);

  SqliteConnection& db_;
  StringUses* const uses_;
  SqliteStatement insert_string_;
  SqliteStatement upsert_session_;
  SqliteStatement insert_page_;
  SqliteStatement add_page_bytes_;
  SqliteStatement upsert_aggregate_;
  SqliteStatement select_sketch_;
  SqliteStatement update_sketch_;
  SqliteStatement count_groups_;
  SqliteStatement select_smallest_;
  SqliteStatement delete_aggregate_;
  SqliteStatement insert_instant_;
  SqliteStatement insert_half_;
  SqliteStatement delete_half_;
  SqliteStatement upsert_cursor_;
  std::unique_ptr<ListingWriter> listings_;
  std::unique_ptr<StepRecordWriter> step_records_;
  // The batch's aggregates and the sketches left unwritten.
  PendingAggregates aggregates_;
  // Scratch, kept between batches to reuse its memory.
  std::vector<Span> sorted_;
  // Rows per session but `other`, as committed plus this batch's so far;
  // cleared when a batch fails (its rows rolled back).
  std::unordered_map<SessionId, uint64_t> session_groups_;
  const std::chrono::milliseconds sketch_write_interval_;
  std::chrono::steady_clock::time_point next_sketch_write_{};
  bool sketches_written_ = false;  // by the batch being written
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_
