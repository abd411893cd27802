#include "storage/span_reader.h"

#include <algorithm>
#include <limits>
#include <string>

#include "storage/keep_recorder.h"
#include "storage/row_mapping.h"
#include "storage/schema.h"
#include "storage/span_page_codec.h"

namespace optrace::daemon {
namespace {

// Readers wait this long for the writer's short locks (WAL recovery,
// checkpoints); in WAL mode a read never waits for a write transaction.
constexpr int kReaderBusyTimeoutMs = 5000;
// How much of the database file a reader maps (address space, not memory).
constexpr int64_t kReaderMmapBytes = int64_t{1} << 30;

Result<SessionRecord> ReadSessionRecordRow(const SqliteStatement& row) {
  return ReadSessionRecord(row, 0);
}

// Damaged stored data (kInvalidArgument) with `context` in front of the
// message of `status`, or OK.
Status InContext(const Status& status, const std::string& context) {
  if (status.ok()) return status;
  return Status::InvalidArgument(context + ": " + status.message());
}

}  // namespace

Result<std::unique_ptr<SpanReader>> SpanReader::Open(const std::string& db_path) {
  Result<std::unique_ptr<SqliteConnection>> db =
      SqliteConnection::Open(db_path, SqliteOpenMode::kReadOnly, kReaderBusyTimeoutMs);
  if (!db.ok()) return db.status();
  Status version = CheckSchemaVersion(*db.value());
  if (!version.ok()) return version;
  // Pages are read from a mapping of the file rather than copied out of
  // it by read(2): about 17% less CPU for a pass over a large session. A
  // reader only reads, and SQLite remaps when the file changes size.
  Status mapped = db.value()->Exec("PRAGMA mmap_size = " + std::to_string(kReaderMmapBytes));
  if (!mapped.ok()) return mapped;
  std::unique_ptr<SpanReader> reader(new SpanReader(std::move(db).value()));
  Status prepared = reader->PrepareStatements();
  if (!prepared.ok()) return prepared;
  return reader;
}

Status SpanReader::PrepareStatements() {
  const std::string sessions = std::string("SELECT ") + kSessionColumns + " FROM sessions ";
  const std::pair<SqliteStatement*, std::string> statements[] = {
      {&list_sessions_, sessions + "ORDER BY start_ns DESC, id DESC"},
      {&running_sessions_, sessions + "WHERE state = 'running' ORDER BY id"},
      {&get_session_, sessions + "WHERE id = ?"},
      // The ids to leave out are one JSON array, so that one prepared
      // statement serves any number of them.
      {&sum_of_drops_except_,
       "SELECT coalesce(sum(dropped_ring_full), 0), coalesce(sum(dropped_no_ring), 0), "
       "coalesce(sum(dropped_shed), 0), coalesce(sum(dropped_daemon_restart), 0), "
       "coalesce(sum(dropped_invalid), 0), coalesce(sum(strings_dropped), 0), "
       "coalesce(sum(names_capped), 0) FROM sessions "
       "WHERE id NOT IN (SELECT value FROM json_each(?))"},
      {&sessions_by_state_, "SELECT state, count(*) FROM sessions GROUP BY state"},
      {&session_by_segment_, sessions + "WHERE segment_name = ?"},
      {&load_strings_, "SELECT id, text FROM strings ORDER BY id"},
      {&get_string_, "SELECT text FROM strings WHERE id = ?"},
      {&max_session_id_, std::string("SELECT max(coalesce((SELECT max(id) FROM sessions), 0), "
                                     "coalesce((SELECT value FROM meta WHERE key = '") +
                             kSessionIdHighWaterKey + "'), 0))"},
      // Served by span_pages_by_start: the range on first_start_ns bounds
      // the scan, last_start_ns is tested in the index, and the index
      // order is the ORDER BY.
      {&select_pages_,
       "SELECT id, span_count FROM span_pages WHERE session_id = ? AND first_start_ns <= ? "
       "AND last_start_ns >= ? AND id % ? = ? ORDER BY first_start_ns, last_start_ns, id"},
      // Served by span_pages_by_start (session_id, then both bounds in the index).
      {&span_start_range_,
       "SELECT count(*), coalesce(min(first_start_ns), 0), coalesce(max(last_start_ns), 0) "
       "FROM span_pages WHERE session_id = ?"},
      {&select_instants_, std::string("SELECT ") + kInstantColumns +
                              " FROM instants WHERE session_id = ? ORDER BY ts_ns, rowid"},
      {&select_halves_, std::string("SELECT ") + kHalfOpColumns +
                            " FROM open_halves WHERE session_id = ? ORDER BY op_id, kind"},
      {&select_cursors_,
       "SELECT session_id, ring, position FROM ring_cursors WHERE session_id = ? ORDER BY ring"},
      {&select_aggregates_, std::string("SELECT ") + kOpAggregateColumns + ", " +
                                kOpAggregateSketchColumns +
                                " FROM op_aggregates WHERE session_id = ? "
                                "ORDER BY name, tag, target, device"},
      {&select_keeps_, kSelectKeepsSql},
      {&select_step_records_, kSelectStepRecordsSql},
      {&select_steps_folded_, kSelectStepsFoldedSql},
      // Served by the UNIQUE (session_id, file, content_hash) index.
      {&select_listings_, std::string("SELECT ") + kListingReadColumns +
                              " FROM listings WHERE session_id = ? AND file = ? ORDER BY id"},
      // Both are rowid range scans.
      {&select_pages_after_,
       "SELECT id, session_id, span_count, data FROM span_pages WHERE id > ? ORDER BY id"},
      {&count_spans_after_, "SELECT coalesce(sum(span_count), 0) FROM span_pages WHERE id > ?"},
  };
  for (const auto& [statement, sql] : statements) {
    Result<SqliteStatement> prepared = db_->Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(prepared).value();
  }
  return Status::Ok();
}

template <typename T, typename ReadRow>
Status SpanReader::CollectRows(SqliteStatement& statement, const std::string& what, ReadRow read,
                               std::vector<T>* out, size_t max_rows) {
  ScopedStatementReset reset(statement);
  for (size_t rows = 0;; ++rows) {
    Result<bool> row = statement.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();
    if (rows == max_rows) {
      return Status::ResourceExhausted(db_->path() + ": " + what + ": more than " +
                                       std::to_string(max_rows) + " rows");
    }
    Result<T> value = read(statement);
    if (!value.ok()) return InContext(value.status(), db_->path() + ": " + what);
    out->push_back(std::move(value).value());
  }
}

Result<std::vector<SessionRecord>> SpanReader::ListSessions() {
  std::vector<SessionRecord> sessions;
  Status status = CollectRows(list_sessions_, "sessions", ReadSessionRecordRow, &sessions);
  if (!status.ok()) return status;
  return sessions;
}

Result<std::vector<SessionRecord>> SpanReader::RunningSessions() {
  std::vector<SessionRecord> sessions;
  Status status = CollectRows(running_sessions_, "sessions", ReadSessionRecordRow, &sessions);
  if (!status.ok()) return status;
  return sessions;
}

Result<SessionRecord> SpanReader::SumOfDropsExcept(std::span<const SessionId> except) {
  std::string ids = "[";
  for (const SessionId id : except) ids += (ids.size() > 1 ? "," : "") + std::to_string(id);
  ids += "]";
  ScopedStatementReset reset(sum_of_drops_except_);
  sum_of_drops_except_.BindText(1, ids);
  Result<bool> row = sum_of_drops_except_.Step();
  if (!row.ok()) return InContext(row.status(), db_->path() + ": the sessions' drops");
  SessionRecord sums;
  if (!row.value()) return sums;
  uint64_t* const fields[] = {&sums.dropped_ring_full, &sums.dropped_no_ring,
                              &sums.dropped_shed,      &sums.dropped_daemon_restart,
                              &sums.dropped_invalid,   &sums.strings_dropped,
                              &sums.names_capped};
  for (int i = 0; i < static_cast<int>(std::size(fields)); ++i) {
    *fields[i] = sum_of_drops_except_.ColumnUint64(i);
  }
  return sums;
}

Result<std::map<std::string, uint64_t>> SpanReader::SessionsByState() {
  std::map<std::string, uint64_t> counts;
  ScopedStatementReset reset(sessions_by_state_);
  for (;;) {
    Result<bool> row = sessions_by_state_.Step();
    if (!row.ok()) return InContext(row.status(), db_->path() + ": the sessions by state");
    if (!row.value()) return counts;
    counts[std::string(sessions_by_state_.ColumnText(0))] = sessions_by_state_.ColumnUint64(1);
  }
}

Result<std::optional<SessionRecord>> SpanReader::FirstSession(SqliteStatement& statement,
                                                              const std::string& what) {
  std::vector<SessionRecord> sessions;
  Status status = CollectRows(statement, what, ReadSessionRecordRow, &sessions);
  if (!status.ok()) return status;
  if (sessions.empty()) return std::optional<SessionRecord>();
  return std::optional<SessionRecord>(std::move(sessions.front()));
}

Result<std::optional<SessionRecord>> SpanReader::GetSession(SessionId session) {
  get_session_.BindUint64(1, session);
  return FirstSession(get_session_, "session " + std::to_string(session));
}

Result<std::optional<SessionRecord>> SpanReader::SessionBySegment(const std::string& segment_name) {
  session_by_segment_.BindText(1, segment_name);
  return FirstSession(session_by_segment_, "session of segment " + segment_name);
}

Result<std::vector<std::pair<StringId, std::string>>> SpanReader::LoadStrings() {
  using Entry = std::pair<StringId, std::string>;
  std::vector<Entry> strings;
  Status status = CollectRows(
      load_strings_, "strings",
      [](const SqliteStatement& row) -> Result<Entry> {
        const int64_t id = row.ColumnInt64(0);
        if (id < 0 || id > static_cast<int64_t>(std::numeric_limits<StringId>::max())) {
          return Status::InvalidArgument("string id " + std::to_string(id) + " out of range");
        }
        return Entry(static_cast<StringId>(id), std::string(row.ColumnText(1)));
      },
      &strings);
  if (!status.ok()) return status;
  return strings;
}

Result<std::optional<std::string>> SpanReader::String(StringId id) {
  ScopedStatementReset reset(get_string_);
  get_string_.BindUint64(1, id);
  Result<bool> row = get_string_.Step();
  if (!row.ok()) return row.status();
  if (!row.value()) return std::optional<std::string>();
  return std::optional<std::string>(std::string(get_string_.ColumnText(0)));
}

Result<SessionId> SpanReader::MaxSessionId() {
  ScopedStatementReset reset(max_session_id_);
  Result<bool> row = max_session_id_.Step();
  if (!row.ok()) return row.status();
  return SessionId{row.value() ? max_session_id_.ColumnUint64(0) : 0};
}

Result<std::optional<SpanStartRange>> SpanReader::StartRange(SessionId session) {
  ScopedStatementReset reset(span_start_range_);
  span_start_range_.BindUint64(1, session);
  Result<bool> row = span_start_range_.Step();
  if (!row.ok()) return row.status();
  std::optional<SpanStartRange> range;
  if (row.value() && span_start_range_.ColumnInt64(0) != 0) {
    range = SpanStartRange{span_start_range_.ColumnInt64(1), span_start_range_.ColumnInt64(2)};
  }
  return range;
}

Status SpanReader::ForEachSpan(SessionId session, int64_t min_start_ns, int64_t max_start_ns,
                               const SpanVisitor& visit, span_page::ColumnSet columns) {
  return ForEachSpanPage(
      session, min_start_ns, max_start_ns,
      [&](std::span<const Span> spans) {
        for (const Span& span : spans) {
          if (!visit(span)) return false;
        }
        return true;
      },
      columns);
}

SpanReader::ScratchScope::~ScratchScope() {
  --reader_.scratch_scopes_;
  reader_.ReleaseScratch();
}

void SpanReader::ReleaseScratch() {
  if (scratch_scopes_ == 0) scratch_ = PageScratch();
}

Status SpanReader::ForEachSpanPage(SessionId session, int64_t min_start_ns, int64_t max_start_ns,
                                   const SpanPageVisitor& visit, span_page::ColumnSet columns,
                                   PageShare share) {
  const bool bounded = min_start_ns != std::numeric_limits<int64_t>::min() ||
                       max_start_ns != std::numeric_limits<int64_t>::max();
  if (bounded) columns |= span_page::kStartNs;
  // One page's bytes and spans, reused for the next page (and the next
  // call, within a ScratchScope).
  struct EndOfRead {
    SpanReader& reader;
    ~EndOfRead() {
      reader.page_blobs_.Close();  // ends the blob handle's hold on the read transaction
      reader.ReleaseScratch();
    }
  } end_of_read{*this};
  PageScratch& scratch = scratch_;
  ScopedStatementReset reset(select_pages_);
  select_pages_.BindUint64(1, session);
  select_pages_.BindInt64(2, max_start_ns);
  select_pages_.BindInt64(3, min_start_ns);
  select_pages_.BindUint64(4, share.count);
  select_pages_.BindUint64(5, share.index);
  std::vector<Span>& spans = scratch.spans;
  while (true) {
    Result<bool> row = select_pages_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();
    const int64_t page_id = select_pages_.ColumnInt64(0);
    auto page = [&] {
      return db_->path() + ": span page " + std::to_string(page_id) + " of session " +
             std::to_string(session);
    };
    Status read = page_blobs_.Read(page_id, &scratch.bytes);
    if (!read.ok()) return InContext(read, page());
    Status decoded = span_page::DecodeInto(scratch.bytes, columns, &spans);
    if (!decoded.ok()) return InContext(decoded, page());
    const int64_t expected = select_pages_.ColumnInt64(1);
    if (static_cast<uint64_t>(expected) != spans.size()) {
      return Status::InvalidArgument(page() + ": holds " + std::to_string(spans.size()) +
                                     " spans, its row says " + std::to_string(expected));
    }
    size_t in_range = spans.size();
    if (bounded) {
      in_range = static_cast<size_t>(std::remove_if(spans.begin(), spans.end(),
                                                    [&](const Span& span) {
                                                      return span.start_ns < min_start_ns ||
                                                             span.start_ns > max_start_ns;
                                                    }) -
                                     spans.begin());
    }
    if (!visit(std::span<const Span>(spans.data(), in_range))) return Status::Ok();
  }
}

Status SpanReader::ForEachInstant(SessionId session, const InstantVisitor& visit) {
  ScopedStatementReset reset(select_instants_);
  select_instants_.BindUint64(1, session);
  while (true) {
    Result<bool> row = select_instants_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return Status::Ok();
    Result<Instant> instant = ReadInstant(select_instants_, 0);
    if (!instant.ok()) {
      return InContext(instant.status(),
                       db_->path() + ": instants of session " + std::to_string(session));
    }
    if (!visit(instant.value())) return Status::Ok();
  }
}

Result<std::vector<HalfOp>> SpanReader::OpenHalves(SessionId session) {
  std::vector<HalfOp> halves;
  select_halves_.BindUint64(1, session);
  Status status = CollectRows(
      select_halves_, "open halves of session " + std::to_string(session),
      [](const SqliteStatement& row) { return ReadHalfOp(row, 0); }, &halves);
  if (!status.ok()) return status;
  return halves;
}

Result<std::vector<RingCursor>> SpanReader::RingCursors(SessionId session) {
  std::vector<RingCursor> cursors;
  select_cursors_.BindUint64(1, session);
  Status status = CollectRows(
      select_cursors_, "ring cursors of session " + std::to_string(session),
      [](const SqliteStatement& row) -> Result<RingCursor> {
        const int64_t ring = row.ColumnInt64(1);
        if (ring < 0 || ring > static_cast<int64_t>(std::numeric_limits<uint32_t>::max())) {
          return Status::InvalidArgument("ring " + std::to_string(ring) + " out of range");
        }
        return RingCursor{row.ColumnUint64(0), static_cast<uint32_t>(ring), row.ColumnUint64(2)};
      },
      &cursors);
  if (!status.ok()) return status;
  return cursors;
}

Result<std::vector<KeepRecord>> SpanReader::Keeps(SessionId session) {
  return LoadKeeps(select_keeps_, session);
}

Result<SessionStepRecords> SpanReader::StepRecords(SessionId session) {
  return LoadStepRecords(select_step_records_, select_steps_folded_, session);
}

Result<std::vector<StoredListing>> SpanReader::Listings(SessionId session,
                                                        const std::string& file) {
  std::vector<StoredListing> listings;
  select_listings_.BindUint64(1, session);
  select_listings_.BindText(2, file);
  Status status = CollectRows(
      select_listings_, "listings of session " + std::to_string(session),
      [](const SqliteStatement& row) { return ReadListing(row, 0); }, &listings);
  if (!status.ok()) return status;
  return listings;
}

Result<std::vector<OpAggregateRow>> SpanReader::Aggregates(SessionId session, size_t max_rows) {
  std::vector<OpAggregateRow> rows;
  select_aggregates_.BindUint64(1, session);
  Status status = CollectRows(
      select_aggregates_, "op aggregates of session " + std::to_string(session),
      [](const SqliteStatement& row) {
        Result<OpAggregateRow> read = ReadOpAggregate(row, 0);
        if (read.ok()) ReadOpAggregateSketch(row, kOpAggregateColumnCount, &read.value());
        return read;
      },
      &rows, max_rows);
  if (!status.ok()) return status;
  return rows;
}

Result<std::vector<StoredSpanPage>> SpanReader::PagesAfter(uint64_t after_page_id,
                                                           size_t max_spans) {
  ScopedStatementReset reset(select_pages_after_);
  select_pages_after_.BindUint64(1, after_page_id);
  std::vector<StoredSpanPage> pages;
  size_t spans = 0;
  while (true) {
    Result<bool> row = select_pages_after_.Step();
    if (!row.ok()) return row.status();
    if (!row.value()) return pages;
    const int64_t count = select_pages_after_.ColumnInt64(2);
    if (!pages.empty() && (count < 0 || static_cast<uint64_t>(count) > max_spans - spans)) {
      return pages;
    }
    const uint64_t id = select_pages_after_.ColumnUint64(0);
    const std::string where = db_->path() + ": span page " + std::to_string(id);
    Result<std::vector<Span>> decoded = span_page::Decode(select_pages_after_.ColumnBlob(3));
    if (!decoded.ok()) return InContext(decoded.status(), where);
    if (static_cast<uint64_t>(count) != decoded->size()) {
      return Status::InvalidArgument(where + ": holds " + std::to_string(decoded->size()) +
                                     " spans, its row says " + std::to_string(count));
    }
    spans += decoded->size();
    pages.push_back({id, select_pages_after_.ColumnUint64(1), std::move(decoded).value()});
    if (spans >= max_spans) return pages;
  }
}

Result<uint64_t> SpanReader::SpanCountAfter(uint64_t after_page_id) {
  ScopedStatementReset reset(count_spans_after_);
  count_spans_after_.BindUint64(1, after_page_id);
  Result<bool> row = count_spans_after_.Step();
  if (!row.ok()) return row.status();
  return row.value() ? count_spans_after_.ColumnUint64(0) : uint64_t{0};
}

}  // namespace optrace::daemon
