#include "storage/batch_writer.h"

#include <algorithm>
#include <string>
#include <utility>

#include "storage/row_mapping.h"
#include "storage/span_page_codec.h"
#include "storage/sqlite_transaction.h"

namespace optrace::daemon {
namespace {

// "a = excluded.a, b = excluded.b, ..." for every column of `columns` (a
// ", "-separated list) but the first, which is the conflict key.
std::string UpdateAllButFirst(std::string_view columns) {
  std::string out;
  size_t start = columns.find(", ");
  while (start != std::string_view::npos) {
    start += 2;
    const size_t end = columns.find(", ", start);
    const std::string_view column = columns.substr(start, end - start);
    if (!out.empty()) out += ", ";
    out += std::string(column) + " = excluded." + std::string(column);
    start = end;
  }
  return out;
}

// Orders by start time, keeping the drain order of equal starts.
bool StartsBefore(const Span& a, const Span& b) { return a.start_ns < b.start_ns; }

}  // namespace

Result<std::unique_ptr<BatchWriter>> BatchWriter::Create(SqliteConnection& db) {
  std::unique_ptr<BatchWriter> writer(new BatchWriter(db));
  Status prepared = writer->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return writer;
}

Status BatchWriter::PrepareStatements() {
  const std::pair<SqliteStatement*, std::string> statements[] = {
      {&insert_string_, "INSERT INTO strings(id, text) VALUES(?, ?) ON CONFLICT(id) DO NOTHING"},
      {&upsert_session_, std::string("INSERT INTO sessions(") + kSessionColumns + ") VALUES(" +
                             Placeholders(kSessionColumnCount) +
                             ") ON CONFLICT(id) DO UPDATE SET " +
                             UpdateAllButFirst(kSessionDrainColumns)},
      {&insert_page_,
       "INSERT INTO span_pages(session_id, first_start_ns, last_start_ns, span_count, data) "
       "VALUES(?, ?, ?, ?, ?)"},
      {&add_page_bytes_, "UPDATE sessions SET page_bytes = page_bytes + ? WHERE id = ?"},
      // Durations are non-negative and at most kMaxAggregateNs on both
      // sides, so the saturating sum never overflows into a REAL; NULL
      // min/max mean "no ok span yet".
      {&upsert_aggregate_,
       std::string("INSERT INTO op_aggregates(") + kOpAggregateColumns + ") VALUES(" +
           Placeholders(kOpAggregateColumnCount) +
           ") ON CONFLICT DO UPDATE SET "
           "count = count + excluded.count, "
           "ok_count = ok_count + excluded.ok_count, "
           "total_ns = CASE WHEN total_ns > 9223372036854775807 - excluded.total_ns "
           "THEN 9223372036854775807 ELSE total_ns + excluded.total_ns END, "
           "min_ns = CASE WHEN excluded.min_ns IS NULL THEN min_ns WHEN min_ns IS NULL "
           "THEN excluded.min_ns ELSE min(min_ns, excluded.min_ns) END, "
           "max_ns = CASE WHEN excluded.max_ns IS NULL THEN max_ns WHEN max_ns IS NULL "
           "THEN excluded.max_ns ELSE max(max_ns, excluded.max_ns) END"},
      {&insert_instant_, std::string("INSERT INTO instants(session_id, ") + kInstantColumns +
                             ") VALUES(" + Placeholders(1 + kInstantColumnCount) + ")"},
      // A half persisted again (e.g. by a restarted daemon) replaces itself.
      {&insert_half_, std::string("INSERT OR REPLACE INTO open_halves(session_id, ") +
                          kHalfOpColumns + ") VALUES(" + Placeholders(1 + kHalfOpColumnCount) +
                          ")"},
      {&delete_half_, "DELETE FROM open_halves WHERE session_id = ? AND op_id = ? AND kind = ?"},
      {&upsert_cursor_,
       "INSERT INTO ring_cursors(session_id, ring, position) VALUES(?, ?, ?) "
       "ON CONFLICT(session_id, ring) DO UPDATE SET position = excluded.position"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_.Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Status BatchWriter::Write(const StoreBatch& batch) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  // The order matters only for halves: one opened and closed within the
  // same batch must end up closed.
  for (Status (BatchWriter::*step)(const StoreBatch&) :
       {&BatchWriter::WriteStrings, &BatchWriter::WriteSessions, &BatchWriter::WriteSpans,
        &BatchWriter::WriteInstants, &BatchWriter::WriteHalves, &BatchWriter::WriteCursors}) {
    Status written = (this->*step)(batch);
    if (!written.ok()) return written;  // the transaction rolls back
  }
  return transaction->Commit();
}

Status BatchWriter::WriteStrings(const StoreBatch& batch) {
  for (const auto& [id, text] : batch.new_strings) {
    insert_string_.BindUint64(1, id);
    insert_string_.BindText(2, text);
    Status done = insert_string_.Run();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::WriteSessions(const StoreBatch& batch) {
  for (const SessionRecord& record : batch.sessions) {
    BindSessionRecord(upsert_session_, 1, record);
    Status done = upsert_session_.Run();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::WriteSpans(const StoreBatch& batch) {
  aggregates_.Clear();
  for (const SessionSpans& entry : batch.spans) {
    std::span<const Span> spans = entry.spans;
    if (!std::is_sorted(spans.begin(), spans.end(), StartsBefore)) {
      sorted_.assign(spans.begin(), spans.end());
      std::stable_sort(sorted_.begin(), sorted_.end(), StartsBefore);
      spans = sorted_;
    }
    uint64_t bytes = 0;
    for (size_t first = 0; first < spans.size(); first += span_page::kMaxSpansPerPage) {
      Result<uint64_t> written = WritePage(
          entry.session,
          spans.subspan(first, std::min(span_page::kMaxSpansPerPage, spans.size() - first)));
      if (!written.ok()) return written.status();
      bytes += written.value();
    }
    add_page_bytes_.BindUint64(1, bytes);
    add_page_bytes_.BindUint64(2, entry.session);
    Status added = add_page_bytes_.Run();
    if (!added.ok()) return added;
    for (const Span& span : spans) aggregates_.Add(entry.session, span);
  }
  return WriteAggregates();
}

Result<uint64_t> BatchWriter::WritePage(SessionId session, std::span<const Span> spans) {
  const std::string data = span_page::Encode(spans);
  insert_page_.BindUint64(1, session);
  insert_page_.BindInt64(2, spans.front().start_ns);
  insert_page_.BindInt64(3, spans.back().start_ns);
  insert_page_.BindUint64(4, spans.size());
  insert_page_.BindBlob(5, data);
  Status inserted = insert_page_.Run();
  if (!inserted.ok()) return inserted;
  return uint64_t{data.size()};
}

Status BatchWriter::WriteAggregates() {
  for (const auto& [key, totals] : aggregates_.entries()) {
    BindOpAggregate(upsert_aggregate_, 1, key, totals);
    Status done = upsert_aggregate_.Run();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::WriteInstants(const StoreBatch& batch) {
  for (const SessionInstants& entry : batch.instants) {
    for (const Instant& instant : entry.instants) {
      insert_instant_.BindUint64(1, entry.session);
      BindInstant(insert_instant_, 2, instant);
      Status done = insert_instant_.Run();
      if (!done.ok()) return done;
    }
  }
  return Status::Ok();
}

Status BatchWriter::WriteHalves(const StoreBatch& batch) {
  for (const SessionHalves& entry : batch.halves_opened) {
    for (const HalfOp& half : entry.halves) {
      insert_half_.BindUint64(1, entry.session);
      BindHalfOp(insert_half_, 2, half);
      Status done = insert_half_.Run();
      if (!done.ok()) return done;
    }
  }
  for (const HalfOpKey& key : batch.halves_closed) {
    delete_half_.BindUint64(1, key.session);
    delete_half_.BindUint64(2, key.op_id);
    delete_half_.BindUint64(3, key.kind);
    Status done = delete_half_.Run();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::WriteCursors(const StoreBatch& batch) {
  for (const RingCursor& cursor : batch.cursors) {
    upsert_cursor_.BindUint64(1, cursor.session);
    upsert_cursor_.BindUint64(2, cursor.ring);
    upsert_cursor_.BindUint64(3, cursor.position);
    Status done = upsert_cursor_.Run();
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

}  // namespace optrace::daemon
