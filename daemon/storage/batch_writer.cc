#include "storage/batch_writer.h"

#include <algorithm>
#include <chrono>
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

// Binds the five columns of `key` from `first`.
void BindKey(SqliteStatement& statement, int first, const OpAggregateKey& key) {
  statement.BindUint64(first, key.session);
  statement.BindUint64(first + 1, key.name);
  statement.BindUint64(first + 2, key.tag);
  statement.BindUint64(first + 3, key.target);
  statement.BindUint64(first + 4, key.device);
}

// Orders by start time, keeping the drain order of equal starts.
bool StartsBefore(const Span& a, const Span& b) { return a.start_ns < b.start_ns; }

}  // namespace

Result<std::unique_ptr<BatchWriter>> BatchWriter::Create(
    SqliteConnection& db, std::chrono::milliseconds sketch_write_interval, StringUses* uses) {
  std::unique_ptr<BatchWriter> writer(new BatchWriter(db, sketch_write_interval, uses));
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
      // min/max mean "no ok span yet". A new row's sketch is NULL until
      // WriteSketches writes it. RETURNING count tells a new row (whose
      // count is the batch's) from an updated one.
      {&upsert_aggregate_,
       std::string("INSERT INTO op_aggregates(") + kOpAggregateColumns +
           ", groups_folded) VALUES(" + Placeholders(kOpAggregateColumnCount + 1) +
           ") ON CONFLICT DO UPDATE SET "
           "count = count + excluded.count, "
           "ok_count = ok_count + excluded.ok_count, "
           "total_ns = CASE WHEN total_ns > 9223372036854775807 - excluded.total_ns "
           "THEN 9223372036854775807 ELSE total_ns + excluded.total_ns END, "
           "self_ns = CASE WHEN self_ns > 9223372036854775807 - excluded.self_ns "
           "THEN 9223372036854775807 ELSE self_ns + excluded.self_ns END, "
           "min_ns = CASE WHEN excluded.min_ns IS NULL THEN min_ns WHEN min_ns IS NULL "
           "THEN excluded.min_ns ELSE min(min_ns, excluded.min_ns) END, "
           "max_ns = CASE WHEN excluded.max_ns IS NULL THEN max_ns WHEN max_ns IS NULL "
           "THEN excluded.max_ns ELSE max(max_ns, excluded.max_ns) END, "
           "groups_folded = groups_folded + excluded.groups_folded "
           "RETURNING count"},
      {&select_sketch_,
       "SELECT sketch FROM op_aggregates WHERE session_id = ? AND name = ? AND tag = ? AND "
       "target = ? AND device = ?"},
      {&update_sketch_,
       "UPDATE op_aggregates SET sketch = ? WHERE session_id = ? AND name = ? AND tag = ? AND "
       "target = ? AND device = ?"},
      {&count_groups_, "SELECT count(*) FROM op_aggregates WHERE session_id = ? AND name <> " +
                           std::to_string(kOtherGroupString)},
      // The session's rows (its `other` row aside) from the least total
      // time: those a fold takes.
      {&select_smallest_,
       std::string("SELECT ") + kOpAggregateColumns + ", " + kOpAggregateSketchColumns +
           " FROM op_aggregates WHERE session_id = ? AND name <> " +
           std::to_string(kOtherGroupString) + " ORDER BY total_ns, count LIMIT ?"},
      {&delete_aggregate_,
       "DELETE FROM op_aggregates WHERE session_id = ? AND name = ? AND tag = ? AND target = ? "
       "AND device = ?"},
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
  Result<std::unique_ptr<ListingWriter>> listings = ListingWriter::Create(db_);
  if (!listings.ok()) return listings.status();
  listings_ = std::move(listings).value();
  Result<std::unique_ptr<StepRecordWriter>> step_records = StepRecordWriter::Create(db_);
  if (!step_records.ok()) return step_records.status();
  step_records_ = std::move(step_records).value();
  return Status::Ok();
}

Status BatchWriter::Write(const StoreBatch& batch) {
  Status written = WriteInTransaction(batch);
  if (!written.ok()) {
    // Rolled back: the cached group counts may be wrong, and the batch's
    // aggregates were not written (the batch is retried or dropped whole).
    session_groups_.clear();
    aggregates_.RolledBack();
    uses_->RolledBack();
    step_records_->RolledBack();
    return written;
  }
  uses_->Committed(batch);
  step_records_->Committed(batch);
  aggregates_.Committed(sketches_written_);
  if (sketches_written_) {
    next_sketch_write_ = std::chrono::steady_clock::now() + sketch_write_interval_;
  }
  return written;
}

Status BatchWriter::WriteInTransaction(const StoreBatch& batch) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db_, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  // The order matters only for halves: one opened and closed within the
  // same batch must end up closed.
  for (Status (BatchWriter::*step)(const StoreBatch&) :
       {&BatchWriter::WriteStrings, &BatchWriter::WriteSessions, &BatchWriter::WriteSpans,
        &BatchWriter::WriteInstants, &BatchWriter::WriteHalves, &BatchWriter::WriteCursors,
        &BatchWriter::WriteListings, &BatchWriter::WriteStringUses,
        &BatchWriter::WriteStepRecords}) {
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

Status BatchWriter::WriteStringUses(const StoreBatch& batch) { return uses_->Write(batch); }

Status BatchWriter::WriteStepRecords(const StoreBatch& batch) {
  return step_records_->Write(batch);
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
  return WriteAggregates(batch);
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

Status BatchWriter::WriteAggregates(const StoreBatch& batch) {
  std::vector<SessionId> over_bound;
  for (const auto& [key, added] : aggregates_.entries()) {
    if (added.totals.count == 0) continue;  // kept from an earlier batch
    bool is_new = false;
    Status done = UpsertTotals(key, added.totals, 0, &is_new);
    if (!done.ok()) return done;
    if (!is_new) continue;
    Result<uint64_t*> groups = SessionGroups(key.session);
    if (!groups.ok()) return groups.status();
    if (++*groups.value() == kMaxAggregateGroups + 1) over_bound.push_back(key.session);
  }
  // A fold reads the stored sketches: they must be complete first.
  const bool ends_session = std::any_of(
      batch.sessions.begin(), batch.sessions.end(),
      [](const SessionRecord& record) { return record.state != SessionState::kRunning; });
  sketches_written_ = ends_session || !over_bound.empty() ||
                      aggregates_.unwritten_keys() >= kMaxUnwrittenSketches ||
                      std::chrono::steady_clock::now() >= next_sketch_write_;
  if (!sketches_written_) return Status::Ok();
  Status done = WriteSketches();
  if (!done.ok()) return done;
  for (const SessionId session : over_bound) {
    done = FoldSmallestGroups(session);
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::UpsertTotals(const OpAggregateKey& key, const OpAggregate& added,
                                 uint64_t groups_folded, bool* is_new) {
  ScopedStatementReset reset(upsert_aggregate_);
  BindOpAggregate(upsert_aggregate_, 1, key, added);
  upsert_aggregate_.BindUint64(1 + kOpAggregateColumnCount, groups_folded);
  Result<bool> row = upsert_aggregate_.Step();
  if (!row.ok()) return row.status();
  *is_new = row.value() && upsert_aggregate_.ColumnUint64(0) == added.count;
  return Status::Ok();
}

Status BatchWriter::WriteSketches() {
  for (const auto& [key, pending] : aggregates_.entries()) {
    if (pending.totals.count == 0 && pending.unwritten.Count() == 0) continue;
    Status done = MergeSketch(key, pending.UnwrittenWithBatch());
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

Status BatchWriter::MergeSketch(const OpAggregateKey& key, DurationSketch sketch) {
  {
    ScopedStatementReset reset(select_sketch_);
    BindKey(select_sketch_, 1, key);
    Result<bool> row = select_sketch_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();  // the row is gone (retention)
    // A NULL sketch (a row from before schema version 7) or one that does
    // not parse is left out: the sketch's count then stays below ok_count,
    // which readers see.
    Result<DurationSketch> stored = DurationSketch::Parse(select_sketch_.ColumnBlob(0));
    if (stored.ok()) sketch.Merge(stored.value());
  }
  const std::string bytes = sketch.Serialize();
  update_sketch_.BindBlob(1, bytes);
  BindKey(update_sketch_, 2, key);
  return update_sketch_.Run();
}

Result<uint64_t*> BatchWriter::SessionGroups(SessionId session) {
  if (auto it = session_groups_.find(session); it != session_groups_.end()) return &it->second;
  ScopedStatementReset reset(count_groups_);
  count_groups_.BindUint64(1, session);
  Result<bool> row = count_groups_.Step();
  if (!row.ok()) return row.status();
  // The row just inserted is counted by the query and by the caller's ++.
  const uint64_t stored = count_groups_.ColumnUint64(0);
  return &session_groups_.emplace(session, stored == 0 ? 0 : stored - 1).first->second;
}

Status BatchWriter::FoldSmallestGroups(SessionId session) {
  Result<uint64_t*> groups = SessionGroups(session);
  if (!groups.ok()) return groups.status();
  OpAggregate folded_totals;
  DurationSketch folded_sketch;
  uint64_t folded_groups = 0;
  std::vector<OpAggregateKey> keys;
  {
    ScopedStatementReset reset(select_smallest_);
    select_smallest_.BindUint64(1, session);
    select_smallest_.BindUint64(2, *groups.value() - kAggregateGroupsAfterFold);
    while (true) {
      Result<bool> step = select_smallest_.Step();
      if (!step.ok()) return step.status();
      if (!step.value()) break;
      Result<OpAggregateRow> row = ReadOpAggregate(select_smallest_, 0);
      if (!row.ok()) return row.status();
      ReadOpAggregateSketch(select_smallest_, kOpAggregateColumnCount, &row.value());
      folded_totals.Merge(row->totals);
      // A sketch that does not parse is left out, as in MergeSketch.
      Result<DurationSketch> sketch = DurationSketch::Parse(row->sketch);
      if (sketch.ok()) folded_sketch.Merge(sketch.value());
      folded_groups += 1 + row->groups_folded;
      keys.push_back(row->key);
    }
  }
  for (const OpAggregateKey& key : keys) {
    BindKey(delete_aggregate_, 1, key);
    Status done = delete_aggregate_.Run();
    if (!done.ok()) return done;
  }
  *groups.value() -= keys.size();
  const OpAggregateKey other = OtherGroupKey(session);
  bool is_new = false;
  Status done = UpsertTotals(other, folded_totals, folded_groups, &is_new);
  if (!done.ok()) return done;
  return MergeSketch(other, std::move(folded_sketch));
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

Status BatchWriter::WriteListings(const StoreBatch& batch) {
  for (const SourceListing& listing : batch.listings) {
    Status done = listings_->Insert(listing);
    if (!done.ok()) return done;
  }
  return Status::Ok();
}

}  // namespace optrace::daemon
