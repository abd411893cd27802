// Spans per second the daemon's storage commits, beside the baseline
// measured in the same run:
//   BM_SpanStore_Commit    SpanStore (writer thread, span pages, op
//                          aggregates) on a fresh file under /tmp: each
//                          iteration submits 16 batches and waits until
//                          they are committed
//   BM_SpanStore_CommitWithSteps   the same with steps: the dictionary
//                          holds "optrace.step" and each batch's first span
//                          of each session is one (a step every batch, as
//                          a loop of 20 ms steps makes), so that the keep
//                          triggers judge steps and the writer records them
//   BM_PlainRows_Insert    the same batches as one row per span, one
//                          prepared INSERT, one transaction per batch, same
//                          pragmas; /1 with an index on (session, start) as
//                          queries need it, /0 without
//   BM_SpanPage_Encode / _Decode   the page codec alone
// A batch is 32768 spans of 4 sessions (8192 each), 50 op names, strictly
// increasing start times, as the drain thread produces them.
// docs/BENCHMARKS.md has the command and the figures.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "model/store_batch.h"
#include "storage/span_page_codec.h"
#include "storage/span_store.h"
#include "storage/sqlite_connection.h"
#include "storage/sqlite_transaction.h"

namespace {

using optrace::Result;
using optrace::Status;
using optrace::daemon::SessionId;
using optrace::daemon::SessionSpans;
using optrace::daemon::Span;
using optrace::daemon::SpanStore;
using optrace::daemon::SqliteConnection;
using optrace::daemon::SqliteOpenMode;
using optrace::daemon::SqliteStatement;
using optrace::daemon::SqliteTransaction;
using optrace::daemon::StoreBatch;
using optrace::daemon::StoreStatus;
using optrace::daemon::StringId;
namespace span_page = optrace::daemon::span_page;

constexpr int kSessions = 4;
constexpr size_t kSpansPerSession = 8192;
constexpr size_t kSpansPerBatch = kSessions * kSpansPerSession;
constexpr int kBatchesPerIteration = 16;
constexpr size_t kQueuedBatches = 8;

// A fresh folder under /tmp, removed at the end of a benchmark.
class BenchDir {
 public:
  BenchDir() {
    char name[] = "/tmp/optrace-bench-storage-XXXXXX";
    if (::mkdtemp(name) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = name;
  }
  ~BenchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The dictionary id BatchSource gives "optrace.step" (no other span's).
constexpr StringId kStepNameId = 200;

// Builds batch after batch of realistic spans: every session advances its
// own clock and op ids, so that start times strictly increase. With
// `with_steps`, the first batch adds "optrace.step" to the dictionary and
// every batch's first span of each session is one.
class BatchSource {
 public:
  explicit BatchSource(bool with_steps) : with_steps_(with_steps) {
    std::mt19937_64 rng(2026);
    for (int s = 0; s < kSessions; ++s) {
      std::vector<Span>& spans = templates_[s];
      int64_t start = 0;
      for (size_t i = 0; i < kSpansPerSession; ++i) {
        Span span;
        start += 200 + static_cast<int64_t>(rng() % 1800);
        span.start_ns = start;
        span.op_id = i + 1;
        span.parent_op_id = i % 8 == 0 ? 0 : i - i % 8 + 1;  // small op groups
        span.duration_ns = 1000 + rng() % 100'000;
        span.has_device_ns = i % 2 == 0;
        span.device_ns = span.has_device_ns ? span.duration_ns - span.duration_ns / 4 : 0;
        span.name = static_cast<StringId>(1 + rng() % 50);
        span.tag = span.name + 50;
        span.srcloc = span.name + 100;
        span.launch_tid = 10'000 + static_cast<uint32_t>(s);
        span.complete_tid = i % 2 == 0 ? 20'000 + static_cast<uint32_t>(s) : span.launch_tid;
        span.stream = i % 2 == 0 ? 1 : 0;
        span.device = 0;
        span.target = i % 2 == 0 ? 2 : 1;
        spans.push_back(span);
      }
      template_span_ns_ = std::max(template_span_ns_, start);
    }
  }

  StoreBatch Next() {
    StoreBatch batch;
    batch.sequence = ++sequence_;
    if (with_steps_ && sequence_ == 1) batch.new_strings = {{kStepNameId, "optrace.step"}};
    const int64_t time_shift = static_cast<int64_t>(sequence_) * (template_span_ns_ + 1);
    const uint64_t id_shift = sequence_ * kSpansPerSession;
    for (int s = 0; s < kSessions; ++s) {
      std::vector<Span> spans = templates_[s];
      for (Span& span : spans) {
        span.start_ns += kEpochNs + time_shift;
        span.op_id += id_shift;
        if (span.parent_op_id != 0) span.parent_op_id += id_shift;
      }
      if (with_steps_) spans.front().name = kStepNameId;
      batch.spans.push_back({static_cast<SessionId>(s + 1), std::move(spans)});
      batch.cursors.push_back({static_cast<SessionId>(s + 1), 0, sequence_ * kSpansPerSession * 2});
    }
    return batch;
  }

 private:
  static constexpr int64_t kEpochNs = 1'780'000'000'000'000'000;
  const bool with_steps_;
  std::vector<Span> templates_[kSessions];
  int64_t template_span_ns_ = 0;
  uint64_t sequence_ = 0;
};

// Commits BatchSource(with_steps)'s batches, kBatchesPerIteration an
// iteration.
void CommitBatches(benchmark::State& state, bool with_steps) {
  BenchDir dir;
  Result<std::unique_ptr<SpanStore>> opened =
      SpanStore::Open({.db_path = dir.File("trace.db"), .max_queued_batches = kQueuedBatches});
  if (!opened.ok()) return state.SkipWithError(opened.status().message().c_str());
  SpanStore& store = *opened.value();
  BatchSource source(with_steps);
  for (auto _ : state) {
    for (int b = 0; b < kBatchesPerIteration; ++b) {
      StoreBatch batch = source.Next();
      // Only this thread submits: room in the queue means Submit succeeds.
      while (store.GetStatus().queued_batches >= kQueuedBatches) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (!store.Submit(std::move(batch))) return state.SkipWithError("queue full");
    }
    if (!store.Flush(60'000)) return state.SkipWithError("flush timed out");
  }
  const StoreStatus status = store.GetStatus();
  if (status.write_errors != 0) state.SkipWithError(status.last_error.c_str());
  state.SetItemsProcessed(static_cast<int64_t>(status.spans_committed));
  state.counters["db_bytes_per_span"] =
      static_cast<double>(status.db_bytes) / static_cast<double>(status.spans_committed);
}

void BM_SpanStore_Commit(benchmark::State& state) { CommitBatches(state, false); }
BENCHMARK(BM_SpanStore_Commit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SpanStore_CommitWithSteps(benchmark::State& state) { CommitBatches(state, true); }
BENCHMARK(BM_SpanStore_CommitWithSteps)->Unit(benchmark::kMillisecond)->UseRealTime();

Status CheckedRun(Status status, benchmark::State& state) {
  if (!status.ok()) state.SkipWithError(status.message().c_str());
  return status;
}

void BM_PlainRows_Insert(benchmark::State& state) {
  BenchDir dir;
  Result<std::unique_ptr<SqliteConnection>> opened =
      SqliteConnection::Open(dir.File("plain.db"), SqliteOpenMode::kReadWriteCreate, 1000);
  if (!opened.ok()) return state.SkipWithError(opened.status().message().c_str());
  SqliteConnection& db = *opened.value();
  std::string schema =
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
      "CREATE TABLE spans(session_id INTEGER NOT NULL, op_id INTEGER NOT NULL, "
      "parent_op_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, "
      "device_ns INTEGER NOT NULL, name INTEGER NOT NULL, tag INTEGER NOT NULL, "
      "srcloc INTEGER NOT NULL, launch_tid INTEGER NOT NULL, complete_tid INTEGER NOT NULL, "
      "stream INTEGER NOT NULL, device INTEGER NOT NULL, target INTEGER NOT NULL, "
      "status INTEGER NOT NULL);";
  if (state.range(0) != 0) schema += "CREATE INDEX spans_by_start ON spans(session_id, start_ns);";
  if (!CheckedRun(db.Exec(schema), state).ok()) return;
  Result<SqliteStatement> insert =
      db.Prepare("INSERT INTO spans VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return state.SkipWithError(insert.status().message().c_str());
  SqliteStatement& row = insert.value();
  BatchSource source(false);
  int64_t rows = 0;
  for (auto _ : state) {
    for (int b = 0; b < kBatchesPerIteration; ++b) {
      const StoreBatch batch = source.Next();
      Result<SqliteTransaction> transaction =
          SqliteTransaction::Begin(db, SqliteTransaction::Kind::kImmediate);
      if (!transaction.ok()) return state.SkipWithError(transaction.status().message().c_str());
      for (const SessionSpans& entry : batch.spans) {
        for (const Span& s : entry.spans) {
          row.BindUint64(1, entry.session);
          row.BindUint64(2, s.op_id);
          row.BindUint64(3, s.parent_op_id);
          row.BindInt64(4, s.start_ns);
          row.BindUint64(5, s.duration_ns);
          row.BindUint64(6, s.device_ns);
          row.BindUint64(7, s.name);
          row.BindUint64(8, s.tag);
          row.BindUint64(9, s.srcloc);
          row.BindUint64(10, s.launch_tid);
          row.BindUint64(11, s.complete_tid);
          row.BindUint64(12, s.stream);
          row.BindUint64(13, s.device);
          row.BindUint64(14, s.target);
          row.BindUint64(15, static_cast<uint64_t>(s.status));
          if (!CheckedRun(row.Run(), state).ok()) return;
          ++rows;
        }
      }
      if (!CheckedRun(transaction->Commit(), state).ok()) return;
    }
  }
  state.SetItemsProcessed(rows);
  Result<uint64_t> bytes = db.BytesOnDisk();
  if (bytes.ok()) {
    state.counters["db_bytes_per_span"] =
        static_cast<double>(bytes.value()) / static_cast<double>(rows);
  }
}
BENCHMARK(BM_PlainRows_Insert)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SpanPage_Encode(benchmark::State& state) {
  BatchSource source(false);
  const StoreBatch batch = source.Next();
  const std::vector<Span>& spans = batch.spans[0].spans;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string page = span_page::Encode(spans);
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(spans.size()));
  state.counters["bytes_per_span"] = static_cast<double>(bytes) / static_cast<double>(spans.size());
}
BENCHMARK(BM_SpanPage_Encode);

void BM_SpanPage_Decode(benchmark::State& state) {
  BatchSource source(false);
  const StoreBatch batch = source.Next();
  const std::string page = span_page::Encode(batch.spans[0].spans);
  for (auto _ : state) {
    Result<std::vector<Span>> spans = span_page::Decode(page);
    if (!spans.ok()) return state.SkipWithError(spans.status().message().c_str());
    benchmark::DoNotOptimize(spans.value().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(batch.spans[0].spans.size()));
}
BENCHMARK(BM_SpanPage_Decode);

}  // namespace

BENCHMARK_MAIN();
