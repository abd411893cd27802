// The forwarder's durable progress: the forward_cursor row of the span
// database (schema version 2), read and moved through a connection of its
// own.
#ifndef OPTRACE_DAEMON_FORWARD_FORWARD_CURSOR_H_
#define OPTRACE_DAEMON_FORWARD_FORWARD_CURSOR_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/status.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// The forward_cursor row. Invariant: ClickHouse has acknowledged every span
// of every page with an id up to page_id (page ids only grow).
struct ForwardProgress {
  uint64_t store_id = 0;  // random, names this database's rows in ClickHouse
  uint64_t page_id = 0;
  uint64_t spans_sent = 0;  // acknowledged, since the row was made
  uint64_t batches_sent = 0;
  uint64_t spans_lost_to_retention = 0;  // deleted before they were sent
};

// A page of an acknowledged batch.
struct SentPage {
  uint64_t id = 0;
  uint64_t spans = 0;
};

// Owns a read-write connection to the span database, used for the cursor
// row only: one short transaction per acknowledged batch, so that the
// store's writer waits at most that long for it (WAL: readers never wait).
// Thread rules: one thread (the forwarder's).
class ForwardCursor {
 public:
  // Opens `db_path`, which SpanStore has created and migrated (kNotFound
  // when absent, kInvalidArgument for another schema version), and makes
  // the row when there is none: a new random store id, nothing sent. The
  // row stays when forwarding is switched off again, so that a later
  // forwarder resumes where this one stopped.
  static Result<std::unique_ptr<ForwardCursor>> Open(const std::string& db_path);

  // The row as stored now (retention adds to spans_lost_to_retention).
  Result<ForwardProgress> Load();

  // Records, in one transaction, that ClickHouse holds every span of
  // `pages`, the pages above the cursor in id order: the cursor moves to
  // the last one, spans_sent grows by their spans and batches_sent by one.
  // Retention counts the spans of pages above the cursor that it deletes;
  // those of `pages` that it deleted while they were being sent were sent
  // after all, and are taken back out of spans_lost_to_retention.
  // REQUIRES: pages is not empty. Errors: SQLite's; nothing changes then.
  Result<ForwardProgress> Advance(std::span<const SentPage> pages);

 private:
  explicit ForwardCursor(std::unique_ptr<SqliteConnection> db) : db_(std::move(db)) {}
  Status Prepare();

  std::unique_ptr<SqliteConnection> db_;
  SqliteStatement select_row_;
  SqliteStatement page_exists_;
  SqliteStatement advance_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_FORWARD_CURSOR_H_
