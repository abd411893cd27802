#include "storage/step_record_writer.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "optrace/abi.h"

namespace optrace::daemon {

Result<std::unique_ptr<StepRecordWriter>> StepRecordWriter::Create(SqliteConnection& db,
                                                                   uint64_t max_per_session) {
  Result<StepSpanNames> names = StepSpanNames::Load(db);
  if (!names.ok()) return names.status();
  std::unique_ptr<StepRecordWriter> writer(
      new StepRecordWriter(db, std::move(names).value(), max_per_session));
  Status prepared = writer->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return writer;
}

Status StepRecordWriter::PrepareStatements() {
  const std::pair<SqliteStatement*, const char*> statements[] = {
      {&select_counts_,
       "SELECT source, recorded, folded FROM step_record_counts WHERE session_id = ?"},
      {&upsert_counts_,
       "INSERT INTO step_record_counts(session_id, source, recorded, folded) VALUES(?, ?, ?, ?) "
       "ON CONFLICT(session_id) DO UPDATE SET source = excluded.source, "
       "recorded = excluded.recorded, folded = excluded.folded"},
      // RETURNING tells a new row from one already there (none returned).
      {&insert_record_,
       "INSERT INTO step_records(session_id, start_ns, number, duration_ns, source) "
       "VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1"},
      {&delete_session_records_, "DELETE FROM step_records WHERE session_id = ?"},
      // The oldest by the primary key's order: one index range.
      {&delete_oldest_,
       "DELETE FROM step_records WHERE session_id = ?1 AND (start_ns, number) IN "
       "(SELECT start_ns, number FROM step_records WHERE session_id = ?1 "
       "ORDER BY start_ns, number LIMIT ?2)"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_.Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

Status StepRecordWriter::Write(const StoreBatch& batch) {
  names_.Note(batch.new_strings);
  if (!names_.any()) [[likely]]
    return Status::Ok();
  NoteProfilerNumbers(batch);
  for (const SessionSpans& entry : batch.spans) {
    steps_.clear();
    bool has_explicit = false;
    for (const Span& span : entry.spans) {
      const std::optional<StepSpanKind> kind = names_.KindOf(span);
      if (!kind.has_value()) [[likely]]
        continue;
      steps_.push_back({span.start_ns, span.op_id, span.duration_ns, *kind});
      has_explicit = has_explicit || *kind == StepSpanKind::kExplicit;
    }
    if (steps_.empty()) continue;
    if (has_explicit) {
      std::erase_if(steps_,
                    [](const CommittedStep& s) { return s.kind != StepSpanKind::kExplicit; });
    }
    std::stable_sort(
        steps_.begin(), steps_.end(),
        [](const CommittedStep& a, const CommittedStep& b) { return a.start_ns < b.start_ns; });
    Status recorded = RecordSteps(entry.session, steps_);
    if (!recorded.ok()) return recorded;
  }
  return Status::Ok();
}

void StepRecordWriter::NoteProfilerNumbers(const StoreBatch& batch) {
  const StringId profiler_id = names_.profiler_id();
  if (profiler_id == 0) return;
  for (const SessionInstants& entry : batch.instants) {
    for (const Instant& instant : entry.instants) {
      if (instant.name != profiler_id || instant.parent_op_id == 0 ||
          instant.kind != static_cast<uint8_t>(abi::EventKind::kCounter)) [[likely]] {
        continue;
      }
      std::deque<ProfilerNumber>& numbers = profiler_numbers_[entry.session];
      numbers.push_back({instant.parent_op_id, instant.value});
      if (numbers.size() > kProfilerNumbersKept) numbers.pop_front();
    }
  }
}

std::optional<uint64_t> StepRecordWriter::ProfilerNumberOf(SessionId session,
                                                           uint64_t op_id) const {
  const auto it = profiler_numbers_.find(session);
  if (it == profiler_numbers_.end()) return std::nullopt;
  // The first counter under a range numbers it, as step detection reads it.
  for (const ProfilerNumber& number : it->second) {
    if (number.op_id != op_id) continue;
    if (number.number < 0) return std::nullopt;
    return static_cast<uint64_t>(number.number);
  }
  return std::nullopt;
}

Status StepRecordWriter::RecordSteps(SessionId session, const std::vector<CommittedStep>& steps) {
  Result<SessionCounts*> found = CountsOf(session);
  if (!found.ok()) return found.status();
  SessionCounts& counts = *found.value();
  const StepSpanKind kind = steps.front().kind;
  if (counts.source != kind && counts.recorded + counts.folded > 0) {
    if (kind == StepSpanKind::kProfiler) return Status::Ok();  // explicit steps win
    delete_session_records_.BindUint64(1, session);
    Status deleted = delete_session_records_.Run();
    if (!deleted.ok()) return deleted;
    counts = SessionCounts{};
  }
  counts.source = kind;
  for (const CommittedStep& step : steps) {
    std::optional<uint64_t> number;
    if (kind == StepSpanKind::kProfiler) number = ProfilerNumberOf(session, step.op_id);
    if (!number.has_value()) number = counts.recorded + counts.folded + 1;
    ScopedStatementReset reset(insert_record_);
    insert_record_.BindUint64(1, session);
    insert_record_.BindInt64(2, step.start_ns);
    insert_record_.BindUint64(3, *number);
    insert_record_.BindUint64(4, step.duration_ns);
    insert_record_.BindInt64(5, static_cast<int64_t>(kind));
    Result<bool> inserted = insert_record_.Step();
    if (!inserted.ok()) return inserted.status();
    if (inserted.value()) ++counts.recorded;
  }
  if (counts.recorded > max_per_session_) {
    Status folded = FoldOldest(session, counts);
    if (!folded.ok()) return folded;
  }
  upsert_counts_.BindUint64(1, session);
  upsert_counts_.BindInt64(2, static_cast<int64_t>(counts.source));
  upsert_counts_.BindUint64(3, counts.recorded);
  upsert_counts_.BindUint64(4, counts.folded);
  return upsert_counts_.Run();
}

Result<StepRecordWriter::SessionCounts*> StepRecordWriter::CountsOf(SessionId session) {
  if (auto it = counts_.find(session); it != counts_.end()) return &it->second;
  SessionCounts counts;
  ScopedStatementReset reset(select_counts_);
  select_counts_.BindUint64(1, session);
  Result<bool> row = select_counts_.Step();
  if (!row.ok()) return row.status();
  if (row.value()) {
    // A source other than profiler reads as explicit: the next explicit
    // step then keeps the rows, a profiler one is not recorded.
    counts.source = select_counts_.ColumnInt64(0) == static_cast<int64_t>(StepSpanKind::kProfiler)
                        ? StepSpanKind::kProfiler
                        : StepSpanKind::kExplicit;
    counts.recorded = select_counts_.ColumnUint64(1);
    counts.folded = select_counts_.ColumnUint64(2);
  }
  return &counts_.emplace(session, counts).first->second;
}

Status StepRecordWriter::FoldOldest(SessionId session, SessionCounts& counts) {
  const uint64_t excess = counts.recorded - max_per_session_;
  delete_oldest_.BindUint64(1, session);
  delete_oldest_.BindUint64(2, excess);
  Status deleted = delete_oldest_.Run();
  if (!deleted.ok()) return deleted;
  counts.recorded = max_per_session_;
  counts.folded += excess;
  return Status::Ok();
}

void StepRecordWriter::Committed(const StoreBatch& batch) {
  for (const SessionRecord& record : batch.sessions) {
    if (record.state == SessionState::kRunning) continue;
    counts_.erase(record.id);
    profiler_numbers_.erase(record.id);
  }
}

}  // namespace optrace::daemon
