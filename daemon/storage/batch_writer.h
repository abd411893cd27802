// Writes one StoreBatch into the database in one transaction.
#ifndef OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_
#define OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "common/status.h"
#include "model/store_batch.h"
#include "storage/op_aggregate.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// Holds the prepared statements of the write path, reused for every batch.
// REQUIRES: `db` has the current schema (PrepareSchema) and outlives the
// writer. Thread rules: one thread (the store's writer thread).
class BatchWriter {
 public:
  // Prepares the statements; errors are SQLite's (see SqliteError).
  static Result<std::unique_ptr<BatchWriter>> Create(SqliteConnection& db);

  // Commits all of `batch` in one transaction, or nothing: on any error the
  // transaction is rolled back and the error returned (see SqliteError for
  // which codes are worth a retry). Each SessionSpans entry becomes one span
  // page (more above span_page::kMaxSpansPerPage spans), its spans in start
  // order; its
  // spans are also added to op_aggregates, and its pages' bytes to its
  // sessions.page_bytes.
  Status Write(const StoreBatch& batch);

 private:
  explicit BatchWriter(SqliteConnection& db) : db_(db) {}
  Status PrepareStatements();
  Status WriteStrings(const StoreBatch& batch);
  Status WriteSessions(const StoreBatch& batch);
  Status WriteSpans(const StoreBatch& batch);
  // Writes one page and returns its data bytes.
  Result<uint64_t> WritePage(SessionId session, std::span<const Span> spans);
  Status WriteAggregates();
  Status WriteInstants(const StoreBatch& batch);
  Status WriteHalves(const StoreBatch& batch);
  Status WriteCursors(const StoreBatch& batch);

  SqliteConnection& db_;
  SqliteStatement insert_string_;
  SqliteStatement upsert_session_;
  SqliteStatement insert_page_;
  SqliteStatement add_page_bytes_;
  SqliteStatement upsert_aggregate_;
  SqliteStatement insert_instant_;
  SqliteStatement insert_half_;
  SqliteStatement delete_half_;
  SqliteStatement upsert_cursor_;
  // Scratch, kept between batches to reuse its memory.
  BatchAggregates aggregates_;
  std::vector<Span> sorted_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_BATCH_WRITER_H_
