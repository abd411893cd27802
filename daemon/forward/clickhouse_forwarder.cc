#include "forward/clickhouse_forwarder.h"

#include <time.h>

#include <algorithm>
#include <map>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "api/string_cache.h"
#include "common/clock_now.h"
#include "forward/row_binary.h"
#include "forward/span_rows.h"
#include "forward/sql_text.h"
#include "log/log.h"

namespace optrace::daemon {
namespace {

using std::chrono::nanoseconds;

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

Result<std::unique_ptr<ClickHouseForwarder>> ClickHouseForwarder::Start(ForwarderOptions options) {
  Result<std::unique_ptr<ForwardCursor>> cursor = ForwardCursor::Open(options.db_path);
  if (!cursor.ok()) return cursor.status();
  Result<ForwardProgress> progress = cursor.value()->Load();
  if (!progress.ok()) return progress.status();
  Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(options.db_path);
  if (!reader.ok()) return reader.status();
  try {
    return std::unique_ptr<ClickHouseForwarder>(
        new ClickHouseForwarder(std::move(options), std::move(cursor).value(),
                                std::move(reader).value(), progress.value()));
  } catch (const std::system_error& e) {
    return Status::Unavailable(std::string("cannot start the forwarder thread: ") + e.what());
  }
}

ClickHouseForwarder::ClickHouseForwarder(ForwarderOptions options,
                                         std::unique_ptr<ForwardCursor> cursor,
                                         std::unique_ptr<SpanReader> reader,
                                         ForwardProgress progress)
    : options_(std::move(options)),
      insert_statement_(SpanInsertStatement(options_.tables.InsertTable())),
      cursor_(std::move(cursor)),
      reader_(std::move(reader)),
      progress_(progress),
      retry_delay_(options_.min_retry_delay),
      last_flush_(std::chrono::steady_clock::now()) {
  status_.url = RedactedUrl(options_.endpoint.url);
  status_.node = options_.node;
  status_.table = options_.tables.InsertTable();
  status_.spans_sent = progress.spans_sent;
  status_.batches_sent = progress.batches_sent;
  status_.spans_lost_to_retention = progress.spans_lost_to_retention;
  thread_ = std::thread([this] { Run(); });
}

ClickHouseForwarder::~ClickHouseForwarder() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  // Relaxed: see CheckCancel in clickhouse_client.cc.
  cancel_.store(true, std::memory_order_relaxed);
  stop_cv_.notify_all();
  thread_.join();
}

ForwarderStatus ClickHouseForwarder::GetStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void ClickHouseForwarder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    const nanoseconds wait = Step();
    lock.lock();
    if (wait > nanoseconds::zero()) {
      stop_cv_.wait_for(lock, wait, [&] { return stopping_; });
    }
  }
}

nanoseconds ClickHouseForwarder::Step() {
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
  // Retention adds to the lost count behind our back: read the row again.
  Result<ForwardProgress> progress = cursor_->Load();
  if (!progress.ok()) return RecordFailure(progress.status());
  progress_ = progress.value();
  Result<uint64_t> backlog = reader_->SpanCountAfter(progress_.page_id);
  if (!backlog.ok()) return RecordFailure(backlog.status());
  Publish(backlog.value());
  if (backlog.value() == 0) return options_.flush_interval;
  const auto flush_at = last_flush_ + options_.flush_interval;
  const auto now = std::chrono::steady_clock::now();
  if (backlog.value() < options_.batch_spans && now < flush_at) return flush_at - now;

  Batch batch;
  if (Status read = ReadBatch(&batch); !read.ok()) return RecordFailure(read);
  if (batch.pages.empty()) return options_.flush_interval;  // retention took them
  // Pages go in id order: once a check finds none of a batch's pages in
  // ClickHouse, it holds none of the later ones either.
  bool some_were_there = false;
  if (maybe_ahead_) {
    Result<bool> checked = DropPagesAlreadyThere(&batch);
    if (!checked.ok()) return RecordFailure(checked.status());
    some_were_there = checked.value();
  }
  if (!batch.rows.empty()) {
    if (Status sent = client_->Insert(insert_statement_, batch.rows); !sent.ok()) {
      if (client_->failure() == ClickHouseFailure::kUnknown) maybe_ahead_ = true;
      // A refusal may mean the tables are gone: create them again first.
      if (client_->failure() == ClickHouseFailure::kRefused) schema_ready_ = false;
      return RecordFailure(sent);
    }
  }
  Result<ForwardProgress> advanced = cursor_->Advance(batch.pages);
  if (!advanced.ok()) {
    maybe_ahead_ = true;  // ClickHouse holds the batch; the cursor does not say so
    return RecordFailure(advanced.status());
  }
  progress_ = advanced.value();
  maybe_ahead_ = some_were_there;
  last_flush_ = std::chrono::steady_clock::now();
  retry_delay_ = options_.min_retry_delay;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.last_error.empty()) {
      LogInfo("forwarding to ClickHouse at {} works again", status_.url);
    }
    status_.last_error.clear();
    status_.last_sent_unix_ns = static_cast<int64_t>(ClockNowNs(CLOCK_REALTIME));
  }
  // What was waiting less what went; spans stored meanwhile count next step.
  Publish(backlog.value() - std::min(backlog.value(), batch.spans()));
  return nanoseconds::zero();
}

Status ClickHouseForwarder::EnsureSchema() {
  for (const std::string& statement : SchemaStatements(options_.tables)) {
    Result<std::string> done = client_->Query(statement, SchemaSettings());
    if (!done.ok()) {
      return Status::Unavailable("creating the span tables: " + done.status().message());
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
      reader_->PagesAfter(progress_.page_id, options_.batch_spans);
  if (!pages.ok()) return pages.status();
  StringCache strings(*reader_);
  const StringLookup lookup = strings.AsLookup();
  std::map<SessionId, std::optional<SessionRecord>> sessions;
  RowBinaryWriter writer;
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
  batch->rows = writer.Take();
  return Status::Ok();
}

Result<bool> ClickHouseForwarder::DropPagesAlreadyThere(Batch* batch) {
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
    LogInfo("ClickHouse at {} already held {} spans of the batch after page {}: not sent again",
            client_->redacted_url(), skipped, progress_.page_id);
  }
  batch->rows = std::move(rows);
  return skipped > 0;
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
