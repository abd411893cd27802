// The forwarder: a thread of its own that sends every span the store has
// committed to ClickHouse, in large RowBinary INSERTs, and keeps a durable
// cursor of what ClickHouse acknowledged (docs/fleet.md).
#ifndef OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_
#define OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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
  // INSERTs in flight at once, each on a connection of its own: while
  // ClickHouse stores some, the next batch is read and encoded. Bounds the
  // memory to that many batches (the one being read included).
  size_t max_batches_in_flight = 4;
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

// How it works: one thread reads batches and moves the cursor, up to
// max_batches_in_flight others send them.
//  * It creates the database and tables when it starts (and again after an
//    insert was refused, in case someone dropped them), and asks ClickHouse
//    for the highest page of this store it holds: a page that a previous
//    run sent but whose cursor commit it did not live to make. Every INSERT
//    carries a query id naming the node, store and pages; before asking, it
//    waits until ClickHouse runs none of them (one that a killed run sent
//    may still be running there, and would land after the check).
//  * It reads the whole pages after the last batch handed out, up to
//    batch_spans spans, with its own SpanReader, in one snapshot with the
//    sessions and strings they need, and hands the batch to a sender; it
//    waits for more while the batch is partial and the last batch went out
//    less than flush_interval ago, and while max_batches_in_flight are out.
//  * Batches may land in any order, but the cursor moves in page order: on
//    ClickHouse's 200 for every batch up to one, ForwardCursor::Advance
//    records them, one transaction each.
//  * When a batch fails (refused, not sent, or an outcome it cannot know: a
//    timeout, a reset connection), it sends nothing more, waits for the
//    batches in flight, keeps the cursor after the last of the acknowledged
//    run, and reads again from there after a delay that doubles up to
//    max_retry_delay. Later batches may have landed meanwhile (or still
//    run there: it waits for them and asks again, as at start): until the
//    reading passes the highest page ever handed out (or found in
//    ClickHouse at start), each batch is first checked, and the pages
//    ClickHouse holds in full are not sent again.
// Thread rules: the public methods are thread-safe.
class ClickHouseForwarder {
 public:
  // Opens the cursor and a reader of `options.db_path` and starts the
  // thread. Errors: the database's (see ForwardCursor::Open), and
  // kUnavailable when the thread cannot start. ClickHouse being unreachable
  // is not an error here: the thread keeps trying.
  static Result<std::unique_ptr<ClickHouseForwarder>> Start(ForwarderOptions options);

  // Stops the threads: the requests in flight are abandoned (their batches
  // are sent again by the next start, or found there already).
  ~ClickHouseForwarder();
  ClickHouseForwarder(const ClickHouseForwarder&) = delete;
  ClickHouseForwarder& operator=(const ClickHouseForwarder&) = delete;

  ForwarderStatus GetStatus() const;

 private:
  struct Batch;
  struct InFlight;

  ClickHouseForwarder(ForwarderOptions options, std::unique_ptr<ForwardCursor> cursor,
                      std::unique_ptr<SpanReader> reader, ForwardProgress progress);
  void Run();
  // One step of Run; returns how long to wait at most before the next (a
  // sender finishing a batch ends the wait early).
  std::chrono::nanoseconds Step();
  // A sender thread: sends the batches handed out, one at a time, on a
  // connection of its own.
  void Send();
  Status EnsureSchema();
  // The one UInt64 that `sql` (… FORMAT RowBinary) answers; `check` names
  // the query in the error for any other answer.
  Result<uint64_t> QueryOneNumber(const std::string& sql, std::string_view check);
  // How many INSERTs of this node and store ClickHouse is running now (their
  // query ids start with insert_query_prefix_), whoever sent them.
  Result<uint64_t> OwnInsertsRunning();
  // The highest page of this store that ClickHouse holds (0 for none).
  Result<uint64_t> HighestPageThere();
  // Moves the cursor over the acknowledged batches at the head of
  // in_flight_. After a failure, waits for every batch in flight, drops
  // them and returns the failure (reading resumes after the cursor).
  Status SettleFinished();
  Status ReadBatch(Batch* batch);
  // Drops from `batch` the pages ClickHouse already holds in full.
  Status DropPagesAlreadyThere(Batch* batch);
  // Counts a failed step, keeps its message, and returns the delay before
  // the next attempt (doubled for the one after).
  std::chrono::nanoseconds RecordFailure(const Status& status);
  // Makes `progress_` and `backlog` what GetStatus shows.
  void Publish(uint64_t backlog);

  const ForwarderOptions options_;
  const std::string insert_statement_;
  // Every INSERT's query id: this, then its first and last page ids.
  const std::string insert_query_prefix_;
  // Used by the reading thread only.
  const std::unique_ptr<ForwardCursor> cursor_;
  const std::unique_ptr<SpanReader> reader_;
  std::unique_ptr<ClickHouseClient> client_;  // made by the thread (it polls cancel_)
  ForwardProgress progress_;
  bool schema_ready_ = false;
  bool knows_highest_there_ = false;
  bool waited_for_own_inserts_ = false;  // logged that it waits
  // ClickHouse may hold pages after the cursor up to this id: found at
  // start, and after a failure the last page handed out.
  uint64_t ahead_through_page_ = 0;
  uint64_t read_after_page_ = 0;    // the last page handed out
  size_t largest_batch_bytes_ = 0;  // of the rows of one batch, so far
  std::chrono::milliseconds retry_delay_;
  std::chrono::steady_clock::time_point last_flush_;

  mutable std::mutex mu_;
  std::condition_variable wake_cv_;  // stopping_ was set, or a batch finished
  std::condition_variable work_cv_;  // stopping_ was set, or a batch was handed out
  ForwarderStatus status_;           // GUARDED_BY(mu_)
  bool stopping_ = false;            // GUARDED_BY(mu_)
  // In page order; the reading thread adds and removes, senders take and
  // finish them.
  std::deque<std::unique_ptr<InFlight>> in_flight_;  // GUARDED_BY(mu_)
  uint64_t batches_finished_ = 0;                    // GUARDED_BY(mu_)
  // Also read by libcurl's progress callback, without mu_.
  std::atomic<bool> cancel_{false};
  std::thread thread_;  // last: started once everything above exists
  std::vector<std::thread> senders_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_CLICKHOUSE_FORWARDER_H_
