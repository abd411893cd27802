// The forwarder: a thread of its own that sends every span the store has
// committed to ClickHouse, in large RowBinary INSERTs, and keeps a durable
// cursor of what ClickHouse acknowledged (docs/fleet.md).
#ifndef OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_
#define OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"
#include "forward/clickhouse_client.h"
#include "forward/clickhouse_schema.h"
#include "forward/forward_cursor.h"
#include "storage/span_reader.h"

namespace optrace::daemon {

// What ClickHouseForwarder::Start needs: where the spans are, where they
// go, as whom, and how to batch them. Validated by the config
// (ValidateConfig) before it gets here.
struct ForwarderOptions {
  std::string db_path;  // the span database (SpanStore has opened it)
  ClickHouseEndpoint endpoint;
  SpanTableNames tables;
  std::string node;  // the node name every row carries
  uint64_t batch_spans =
      100'000;  // spans per INSERT, at most (whole pages: one page may exceed it)
  std::chrono::nanoseconds flush_interval = std::chrono::seconds(1);
  // Retry delays after a failure: doubling from min to max.
  std::chrono::milliseconds min_retry_delay{200};
  std::chrono::milliseconds max_retry_delay{30'000};
};

// What GetStatus shows of the forwarder.
struct ForwarderStatus {
  std::string url;  // redacted
  std::string node;
  std::string table;        // where rows are inserted
  uint64_t spans_sent = 0;  // durable counters (forward_cursor)
  uint64_t batches_sent = 0;
  uint64_t spans_lost_to_retention = 0;
  uint64_t errors = 0;         // since start
  std::string last_error;      // "" after a success
  uint64_t backlog_spans = 0;  // stored after the cursor
  int64_t last_sent_unix_ns = 0;
};

// How it works, one pass after another on its own thread:
//  * creates the database and tables when it starts (and again after an
//    insert was refused, in case someone dropped them);
//  * reads the whole pages after the cursor, up to batch_spans spans, with
//    its own SpanReader, in one snapshot with the sessions and strings they
//    need; waits for more while the batch is partial and the last send is
//    less than flush_interval ago;
//  * after an outcome it cannot know (a timeout, a reset connection, a
//    restart: the cursor is written after ClickHouse's answer), first asks
//    ClickHouse which pages of the batch it holds already and sends only
//    the others, so that a batch is not stored twice; it keeps asking for
//    the next batches until a check finds none of a batch's pages there;
//  * on ClickHouse's 200 moves the cursor (ForwardCursor::Advance); on a
//    failure counts it, keeps the message, and tries again after a delay
//    that doubles up to max_retry_delay.
// It never touches draining or the store's queue: a slow or dead
// ClickHouse only grows the backlog, which retention bounds (spans it
// deletes unsent are counted as lost).
// Thread rules: the public methods are thread-safe.
class ClickHouseForwarder {
 public:
  // Opens the cursor and a reader of `options.db_path` and starts the
  // thread. Errors: the database's (see ForwardCursor::Open), and
  // kUnavailable when the thread cannot start. ClickHouse being unreachable
  // is not an error here: the thread keeps trying.
  static Result<std::unique_ptr<ClickHouseForwarder>> Start(ForwarderOptions options);

  // Stops the thread: a request in flight is abandoned (its batch is sent
  // again by the next start, or found there already).
  ~ClickHouseForwarder();
  ClickHouseForwarder(const ClickHouseForwarder&) = delete;
  ClickHouseForwarder& operator=(const ClickHouseForwarder&) = delete;

  ForwarderStatus GetStatus() const;

 private:
  struct Batch;

  ClickHouseForwarder(ForwarderOptions options, std::unique_ptr<ForwardCursor> cursor,
                      std::unique_ptr<SpanReader> reader, ForwardProgress progress);
  void Run();
  // One step of Run; returns how long to wait before the next.
  std::chrono::nanoseconds Step();
  Status EnsureSchema();
  Status ReadBatch(Batch* batch);
  // Drops from `batch` the pages ClickHouse already holds in full; returns
  // whether there were any.
  Result<bool> DropPagesAlreadyThere(Batch* batch);
  // Counts a failed step, keeps its message, and returns the delay before
  // the next attempt (doubled for the one after).
  std::chrono::nanoseconds RecordFailure(const Status& status);
  // Makes `progress_` and `backlog` what GetStatus shows.
  void Publish(uint64_t backlog);

  const ForwarderOptions options_;
  const std::string insert_statement_;
  // Used by the thread only.
  const std::unique_ptr<ForwardCursor> cursor_;
  const std::unique_ptr<SpanReader> reader_;
  std::unique_ptr<ClickHouseClient> client_;  // made by the thread (it polls cancel_)
  ForwardProgress progress_;
  bool schema_ready_ = false;
  // Whether ClickHouse may hold spans after the cursor: at start, after a
  // send whose outcome is unknown, and while checks keep finding pages
  // there (the cursor may lag by more than one batch).
  bool maybe_ahead_ = true;
  std::chrono::milliseconds retry_delay_;
  std::chrono::steady_clock::time_point last_flush_;

  mutable std::mutex mu_;
  std::condition_variable stop_cv_;  // stopping_ was set
  ForwarderStatus status_;           // GUARDED_BY(mu_)
  bool stopping_ = false;            // GUARDED_BY(mu_)
  // Also read by libcurl's progress callback, without mu_.
  std::atomic<bool> cancel_{false};
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_
