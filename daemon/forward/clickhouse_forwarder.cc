#include "forward/clickhouse_forwarder.h"

#include <time.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "common/clock_now.h"
#include "forward/row_binary.h"
#include "forward/span_rows.h"
#include "forward/sql_text.h"
#include "log/log.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

using std::chrono::nanoseconds;

// How often the start waits look again at INSERTs of an earlier run.
constexpr std::chrono::milliseconds kOwnInsertsPoll{50};

}  // namespace

// The pages of one INSERT and their rows. Invariant: the rows of pages[i]
// are rows[ends[i - 1], ends[i]) (from 0 for the first).
struct ClickHouseForwarder::Batch {
  std::vector<SentPage> pages;
  std::vector<size_t> ends;
  std::string rows;

  uint64_t spans() const {
    uint64_t n = 0;
    for (const SentPage& page : pages) n += page.spans;
    return n;
  }
};

// A batch handed to the senders, and what became of it.
struct ClickHouseForwarder::InFlight {
  Batch batch;
  bool taken = false;  // a sender has it, or it needs none
  bool done = false;
  Status outcome;  // once done
  ClickHouseFailure failure = ClickHouseFailure::kNone;
};

Result<std::unique_ptr<ClickHouseForwarder>> ClickHouseForwarder::Start(ForwarderOptions options) {
  Result<std::unique_ptr<ForwardCursor>> cursor = ForwardCursor::Open(options.db_path);
  if (!cursor.ok()) return cursor.status();
  Result<ForwardProgress> progress = cursor.value()->Load();
  if (!progress.ok()) return progress.status();
  Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(options.db_path);
  if (!reader.ok()) return reader.status();
  std::unique_ptr<ClickHouseForwarder> forwarder(new ClickHouseForwarder(
      std::move(options), std::move(cursor).value(), std::move(reader).value(), progress.value()));
  try {
    // The destructor stops and joins whatever started before a failure.
    forwarder->thread_ = std::thread([f = forwarder.get()] { f->Run(); });
    const size_t senders = std::max<size_t>(1, forwarder->options_.max_batches_in_flight);
    for (size_t i = 0; i < senders; ++i) {
      forwarder->senders_.emplace_back([f = forwarder.get()] { f->Send(); });
    }
  } catch (const std::system_error& e) {
    return Status::Unavailable(std::string("cannot start the forwarder threads: ") + e.what());
  }
  return forwarder;
}

ClickHouseForwarder::ClickHouseForwarder(ForwarderOptions options,
                                         std::unique_ptr<ForwardCursor> cursor,
                                         std::unique_ptr<SpanReader> reader,
                                         ForwardProgress progress)
    : options_(std::move(options)),
      insert_statement_(SpanInsertStatement(options_.tables.InsertTable())),
      insert_query_prefix_("optrace-forward-" + options_.node + "-" +
                           std::to_string(progress.store_id) + "-"),
      cursor_(std::move(cursor)),
      reader_(std::move(reader)),
      progress_(progress),
      read_after_page_(progress.page_id),
      retry_delay_(options_.min_retry_delay),
      last_flush_(std::chrono::steady_clock::now()) {
  status_.url = RedactedUrl(options_.endpoint.url);
  status_.node = options_.node;
  status_.table = options_.tables.InsertTable();
  status_.spans_sent = progress.spans_sent;
  status_.batches_sent = progress.batches_sent;
  status_.spans_lost_to_retention = progress.spans_lost_to_retention;
}

ClickHouseForwarder::~ClickHouseForwarder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  // Relaxed: see CheckCancel in clickhouse_client.cc.
  cancel_.store(true, std::memory_order_relaxed);
  wake_cv_.notify_all();
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (std::thread& sender : senders_) sender.join();
}

ForwarderStatus ClickHouseForwarder::GetStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void ClickHouseForwarder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const uint64_t finished = batches_finished_;
    lock.unlock();
    const nanoseconds wait = Step();
    lock.lock();
    if (wait > nanoseconds::zero()) {
      wake_cv_.wait_for(lock, wait, [&] { return stopping_ || batches_finished_ != finished; });
    }
  }
}

void ClickHouseForwarder::Send() {
  std::unique_ptr<ClickHouseClient> client;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    InFlight* job = nullptr;
    work_cv_.wait(lock, [&] {
      if (stopping_) return true;
      for (const std::unique_ptr<InFlight>& entry : in_flight_) {
        if (!entry->taken) {
          job = entry.get();
          return true;
        }
      }
      return false;
    });
    if (stopping_) return;
    job->taken = true;
    lock.unlock();
    Status sent;
    ClickHouseFailure failure = ClickHouseFailure::kNotSent;
    if (client == nullptr) {
      Result<std::unique_ptr<ClickHouseClient>> made =
          ClickHouseClient::Create(options_.endpoint, &cancel_);
      if (made.ok()) {
        client = std::move(made).value();
      } else {
        sent = made.status();
      }
    }
    if (client != nullptr) {
      const std::string query_id = insert_query_prefix_ +
                                   std::to_string(job->batch.pages.front().id) + "-" +
                                   std::to_string(job->batch.pages.back().id);
      sent = client->Insert(insert_statement_, job->batch.rows, {{"query_id", query_id}});
      failure = client->failure();
    }
    lock.lock();
    job->outcome = std::move(sent);
    job->failure = failure;
    job->done = true;
    ++batches_finished_;
    wake_cv_.notify_all();
  }
}

nanoseconds ClickHouseForwarder::Step() {
  // Retention adds to the lost count behind our back: read the row again.
  Result<ForwardProgress> progress = cursor_->Load();
  if (!progress.ok()) return RecordFailure(progress.status());
  progress_ = progress.value();
  Result<uint64_t> backlog = reader_->SpanCountAfter(progress_.page_id);
  if (!backlog.ok()) return RecordFailure(backlog.status());
  Publish(backlog.value());

  if (client_ == nullptr) {
    Result<std::unique_ptr<ClickHouseClient>> client =
        ClickHouseClient::Create(options_.endpoint, &cancel_);
    if (!client.ok()) return RecordFailure(client.status());
    client_ = std::move(client).value();
  }
  if (!schema_ready_) {
    if (Status created = EnsureSchema(); !created.ok()) return RecordFailure(created);
    schema_ready_ = true;
  }
  if (!knows_highest_there_) {
    // An INSERT of an earlier run (or connection) may still be running
    // there: what it holds is known once it has finished.
    Result<uint64_t> running = OwnInsertsRunning();
    if (!running.ok()) return RecordFailure(running.status());
    if (running.value() > 0) {
      if (!waited_for_own_inserts_) {
        LogInfo(
            "ClickHouse at {} still runs {} INSERTs of this node sent before: waiting for "
            "them before checking which pages it holds",
            client_->redacted_url(), running.value());
        waited_for_own_inserts_ = true;
      }
      return kOwnInsertsPoll;
    }
    waited_for_own_inserts_ = false;
    Result<uint64_t> highest = HighestPageThere();
    if (!highest.ok()) return RecordFailure(highest.status());
    ahead_through_page_ = std::max(ahead_through_page_, highest.value());
    knows_highest_there_ = true;
  }
  if (Status settled = SettleFinished(); !settled.ok()) return RecordFailure(settled);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (in_flight_.size() >= std::max<size_t>(1, options_.max_batches_in_flight)) {
      return options_.flush_interval;  // until one finishes
    }
    for (const std::unique_ptr<InFlight>& entry : in_flight_) {
      // One failed: hand out nothing more until SettleFinished has it.
      if (entry->done && !entry->outcome.ok()) return options_.flush_interval;
    }
  }
  Result<uint64_t> waiting = reader_->SpanCountAfter(read_after_page_);
  if (!waiting.ok()) return RecordFailure(waiting.status());
  if (waiting.value() == 0) return options_.flush_interval;
  const auto flush_at = last_flush_ + options_.flush_interval;
  const auto now = std::chrono::steady_clock::now();
  if (waiting.value() < options_.batch_spans && now < flush_at) return flush_at - now;

  auto entry = std::make_unique<InFlight>();
  Batch& batch = entry->batch;
  if (Status read = ReadBatch(&batch); !read.ok()) return RecordFailure(read);
  if (batch.pages.empty()) return options_.flush_interval;  // retention took them
  if (batch.pages.front().id <= ahead_through_page_) {
    if (Status checked = DropPagesAlreadyThere(&batch); !checked.ok()) {
      return RecordFailure(checked);
    }
  }
  read_after_page_ = batch.pages.back().id;
  last_flush_ = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (batch.rows.empty()) {  // all there already
      entry->taken = entry->done = true;
      ++batches_finished_;
    }
    in_flight_.push_back(std::move(entry));
  }
  work_cv_.notify_one();
  return nanoseconds::zero();
}

Result<uint64_t> ClickHouseForwarder::QueryOneNumber(const std::string& sql,
                                                     std::string_view check) {
  Result<std::string> answer = client_->Query(sql);
  if (!answer.ok()) return answer.status();
  RowBinaryReader reader(answer.value());
  const uint64_t number = reader.Int<uint64_t>();
  if (!reader.status().ok() || !reader.AtEnd()) {
    return Status::Unavailable("ClickHouse at " + client_->redacted_url() +
                               ": unexpected answer to the " + std::string(check));
  }
  return number;
}

Result<uint64_t> ClickHouseForwarder::OwnInsertsRunning() {
  const std::string prefix = SqlString(insert_query_prefix_);
  return QueryOneNumber(
      "SELECT count() FROM system.processes WHERE substring(query_id, 1, "
      "length(" +
          prefix + ")) = " + prefix + " FORMAT RowBinary",
      "running INSERTs check");
}

Result<uint64_t> ClickHouseForwarder::HighestPageThere() {
  return QueryOneNumber("SELECT max(page_id) FROM " + options_.tables.InsertTable() +
                            " WHERE node = " + SqlString(options_.node) +
                            " AND store_id = " + SqlUInt(progress_.store_id) + " FORMAT RowBinary",
                        "highest page check");
}

Status ClickHouseForwarder::SettleFinished() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!in_flight_.empty() && in_flight_.front()->done) {
    if (!in_flight_.front()->outcome.ok()) break;
    std::unique_ptr<InFlight> head = std::move(in_flight_.front());
    in_flight_.pop_front();
    lock.unlock();
    Result<ForwardProgress> advanced = cursor_->Advance(head->batch.pages);
    if (!advanced.ok()) {
      // ClickHouse holds the batch; the cursor does not say so.
      ahead_through_page_ = std::max(ahead_through_page_, head->batch.pages.back().id);
      lock.lock();
      in_flight_.push_front(std::move(head));
      in_flight_.front()->outcome = advanced.status();
      break;
    }
    progress_ = advanced.value();
    retry_delay_ = options_.min_retry_delay;
    lock.lock();
    if (!status_.last_error.empty()) {
      LogInfo("forwarding to ClickHouse at {} works again", status_.url);
    }
    status_.last_error.clear();
    status_.last_sent_unix_ns = static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME));
    status_.spans_sent = progress_.spans_sent;
    status_.batches_sent = progress_.batches_sent;
    // What was waiting less what went; spans stored meanwhile count next step.
    status_.backlog_spans -= std::min(status_.backlog_spans, head->batch.spans());
  }
  if (in_flight_.empty() || !in_flight_.front()->done) return Status::Ok();
  // The head failed: send nothing more, and wait for what is out (the
  // batches after it may land or not; the checks sort that out).
  Status failed = in_flight_.front()->outcome;
  const ClickHouseFailure failure = in_flight_.front()->failure;
  // Senders finish theirs even when stopping: cancel_ cuts them short.
  for (std::unique_ptr<InFlight>& entry : in_flight_) {
    if (!entry->taken) entry->taken = entry->done = true;
  }
  wake_cv_.wait(lock, [&] {
    return std::all_of(in_flight_.begin(), in_flight_.end(),
                       [](const std::unique_ptr<InFlight>& entry) { return entry->done; });
  });
  ahead_through_page_ = std::max(ahead_through_page_, read_after_page_);
  knows_highest_there_ = false;  // a cut connection's INSERT may still run there
  in_flight_.clear();
  read_after_page_ = progress_.page_id;
  // A refusal may mean the tables are gone: create them again first.
  if (failure == ClickHouseFailure::kRefused) schema_ready_ = false;
  return failed;
}
Status ClickHouseForwarder::EnsureSchema() {
  for (const std::string& statement : SchemaStatements(options_.tables)) {
    Result<std::string> done = client_->Query(statement, SchemaSettings());
    if (!done.ok()) {
      return Status::Unavailable("creating the span tables: " + done.status().message());
    }
  }
  // Tables created by an older optraced: add the columns they lack
  // (ClickHouse 18.16 has no ADD COLUMN IF NOT EXISTS).
  for (const std::string& table : TablesToUpgrade(options_.tables)) {
    for (const AddedSpanColumn& column : AddedSpanColumns()) {
      Result<std::string> has = client_->Query(HasColumnQuery(table, column.name));
      if (!has.ok()) {
        return Status::Unavailable("reading the columns of " + table + ": " +
                                   has.status().message());
      }
      if (has.value() != "0\n") continue;
      Result<std::string> added = client_->Query(AddColumnStatement(table, column));
      if (!added.ok()) {
        return Status::Unavailable("adding column " + std::string(column.name) + " to " + table +
                                   ": " + added.status().message());
      }
    }
  }
  return Status::Ok();
}

Status ClickHouseForwarder::ReadBatch(Batch* batch) {
  // One snapshot: the pages, and the sessions and strings they name, as
  // one commit left them.
  Result<SqliteTransaction> snapshot = reader_->Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  Result<std::vector<StoredSpanPage>> pages =
      reader_->PagesAfter(read_after_page_, options_.batch_spans);
  if (!pages.ok()) return pages.status();
  StringCache strings(*reader_);
  const StringLookup lookup = strings.AsLookup();
  std::map<SessionId, std::optional<SessionRecord>> sessions;
  RowBinaryWriter writer;
  writer.Reserve(largest_batch_bytes_);  // no copies while the rows grow
  for (const StoredSpanPage& page : pages.value()) {
    auto [it, inserted] = sessions.try_emplace(page.session);
    if (inserted) {
      Result<std::optional<SessionRecord>> record = reader_->GetSession(page.session);
      if (!record.ok()) return record.status();
      it->second = std::move(record).value();
    }
    const SpanPageContext context{options_.node, progress_.store_id, page.id,
                                  it->second ? &*it->second : nullptr, page.session};
    for (size_t i = 0; i < page.spans.size(); ++i) {
      AppendSpanRow(context, static_cast<uint32_t>(i), page.spans[i], lookup, &writer);
    }
    batch->pages.push_back({page.id, page.spans.size()});
    batch->ends.push_back(writer.bytes().size());
  }
  if (!strings.status().ok()) return strings.status();
  largest_batch_bytes_ = std::max(largest_batch_bytes_, writer.bytes().size());
  batch->rows = writer.Take();
  return Status::Ok();
}

Status ClickHouseForwarder::DropPagesAlreadyThere(Batch* batch) {
  const std::string sql = "SELECT page_id, count() FROM " + options_.tables.InsertTable() +
                          " WHERE node = " + SqlString(options_.node) +
                          " AND store_id = " + SqlUInt(progress_.store_id) +
                          " AND page_id >= " + SqlUInt(batch->pages.front().id) +
                          " AND page_id <= " + SqlUInt(batch->pages.back().id) +
                          " GROUP BY page_id FORMAT RowBinary";
  Result<std::string> answer = client_->Query(sql);
  if (!answer.ok()) return answer.status();
  std::map<uint64_t, uint64_t> rows_there;
  RowBinaryReader reader(answer.value());
  while (!reader.AtEnd()) {
    const uint64_t page = reader.Int<uint64_t>();
    const uint64_t count = reader.Int<uint64_t>();
    if (!reader.status().ok()) {
      return Status::Unavailable(
          "ClickHouse at " + client_->redacted_url() +
          ": unexpected answer to the page check: " + reader.status().message());
    }
    rows_there[page] = count;
  }
  std::string rows;
  uint64_t skipped = 0;
  size_t begin = 0;
  for (size_t i = 0; i < batch->pages.size(); ++i) {
    const auto there = rows_there.find(batch->pages[i].id);
    if (there != rows_there.end() && there->second >= batch->pages[i].spans) {
      skipped += batch->pages[i].spans;
    } else {
      rows.append(batch->rows, begin, batch->ends[i] - begin);
    }
    begin = batch->ends[i];
  }
  if (skipped > 0) {
    LogInfo("ClickHouse at {} already held {} spans of the batch from page {}: not sent again",
            client_->redacted_url(), skipped, batch->pages.front().id);
  }
  batch->rows = std::move(rows);
  return Status::Ok();
}

nanoseconds ClickHouseForwarder::RecordFailure(const Status& status) {
  const nanoseconds delay = retry_delay_;
  retry_delay_ = std::min(retry_delay_ * 2, options_.max_retry_delay);
  std::lock_guard<std::mutex> lock(mu_);
  if (status_.last_error.empty()) {
    LogWarning("forwarding to ClickHouse: {} (retrying every {} ms at most, the spans wait)",
               status.message(), options_.max_retry_delay.count());
  }
  ++status_.errors;
  status_.last_error = status.message();
  return delay;
}

void ClickHouseForwarder::Publish(uint64_t backlog) {
  std::lock_guard<std::mutex> lock(mu_);
  status_.spans_sent = progress_.spans_sent;
  status_.batches_sent = progress_.batches_sent;
  status_.spans_lost_to_retention = progress_.spans_lost_to_retention;
  status_.backlog_spans = backlog;
}

}  // namespace optrace::daemon
