#include "storage/schema.h"

#include <iterator>
#include <string>

#include "storage/sqlite_transaction.h"

namespace optrace::daemon {
namespace {

// One step forward: the SQL that turns version `to_version - 1` into
// `to_version`. A new schema version appends one entry; entries are never
// edited once released, since existing databases have already run them.
struct Migration {
  int64_t to_version;
  const char* sql;
};

// Version 1. Spans are stored as compact pages (see span_page_codec.h), one
// row per session per batch, because one row per span caps the writer near
// half a million spans per second. span_pages_by_start covers the time-range
// test of SpanReader::ForEachSpan (last_start_ns is in the index so that the
// pages outside the range are skipped without reading their rows).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE strings(
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL);
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY,
  segment_name TEXT NOT NULL UNIQUE,
  pid INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  executable TEXT NOT NULL,
  command_line TEXT NOT NULL,
  label TEXT NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'exited', 'crashed')),
  events INTEGER NOT NULL,
  spans INTEGER NOT NULL,
  instants INTEGER NOT NULL,
  open_ops INTEGER NOT NULL,
  dropped_ring_full INTEGER NOT NULL,
  dropped_no_ring INTEGER NOT NULL,
  dropped_shed INTEGER NOT NULL,
  dropped_daemon_restart INTEGER NOT NULL,
  dropped_invalid INTEGER NOT NULL,
  strings_dropped INTEGER NOT NULL);
CREATE TABLE span_pages(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  first_start_ns INTEGER NOT NULL,
  last_start_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  data BLOB NOT NULL);
CREATE INDEX span_pages_by_start ON span_pages(session_id, first_start_ns, last_start_ns);
CREATE TABLE op_aggregates(
  session_id INTEGER NOT NULL,
  name INTEGER NOT NULL,
  tag INTEGER NOT NULL,
  target INTEGER NOT NULL,
  device INTEGER NOT NULL,
  count INTEGER NOT NULL,
  ok_count INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  min_ns INTEGER,
  max_ns INTEGER,
  PRIMARY KEY (session_id, name, tag, target, device)) WITHOUT ROWID;
CREATE TABLE instants(
  session_id INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  level INTEGER NOT NULL,
  name INTEGER NOT NULL,
  tag INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  parent_op_id INTEGER NOT NULL,
  value INTEGER NOT NULL);
CREATE INDEX instants_by_time ON instants(session_id, ts_ns);
CREATE TABLE open_halves(
  session_id INTEGER NOT NULL,
  op_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  ts_ns INTEGER NOT NULL,
  raw_ts INTEGER NOT NULL,
  parent_op_id INTEGER NOT NULL,
  device_ns INTEGER NOT NULL,
  name INTEGER NOT NULL,
  tag INTEGER NOT NULL,
  srcloc INTEGER NOT NULL,
  tid INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  device INTEGER NOT NULL,
  target INTEGER NOT NULL,
  PRIMARY KEY (session_id, op_id, kind)) WITHOUT ROWID;
CREATE TABLE ring_cursors(
  session_id INTEGER NOT NULL,
  ring INTEGER NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (session_id, ring)) WITHOUT ROWID;
)sql";

// Version 2, for forwarding spans to ClickHouse (daemon/forward/).
// span_pages gets AUTOINCREMENT: page ids then only grow, even after
// retention deleted the pages with the highest ids, so that "every page
// with an id up to N" (the forwarder's cursor) never takes in a later page.
// SQLite cannot add it to a table in place: the table is copied. The
// forward_cursor table has at most one row, created by the forwarder when it
// first starts (retention counts unsent pages only when it exists).
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE span_pages_v2(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER NOT NULL,
  first_start_ns INTEGER NOT NULL,
  last_start_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  data BLOB NOT NULL);
INSERT INTO span_pages_v2(id, session_id, first_start_ns, last_start_ns, span_count, data)
  SELECT id, session_id, first_start_ns, last_start_ns, span_count, data FROM span_pages
  ORDER BY id;
DROP TABLE span_pages;
ALTER TABLE span_pages_v2 RENAME TO span_pages;
CREATE INDEX span_pages_by_start ON span_pages(session_id, first_start_ns, last_start_ns);
CREATE TABLE forward_cursor(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  store_id INTEGER NOT NULL,
  page_id INTEGER NOT NULL,
  spans_sent INTEGER NOT NULL,
  batches_sent INTEGER NOT NULL,
  spans_lost_to_retention INTEGER NOT NULL);
)sql";

// Version 3: an unpaired COMPLETE says whether it carried a device
// duration, so that a measured 0 ns is not read as "none" once the daemon
// restarts. Before, 0 meant none.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE open_halves ADD COLUMN has_device_ns INTEGER NOT NULL DEFAULT 0;
UPDATE open_halves SET has_device_ns = 1 WHERE device_ns != 0;
)sql";

// Version 4: a session keeps how many names and tags its instrumentation
// layers replaced at their caps (SegmentHeader::names_capped). Sessions
// stored before did not count them: 0.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE sessions ADD COLUMN names_capped INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 5: the rolling window of running sessions and fair retention
// (storage/rolling_window.h, storage/retention.h). A session keeps what the
// store trimmed from it (spans_trimmed, instants_trimmed, and
// trimmed_before_ns: the last start of the newest page trimmed) and the
// bytes of its span pages (page_bytes: what a session and a uid hold,
// without scanning pages), computed here once for the sessions already
// stored. span_pages_by_last_start gives each session's pages oldest
// first and its newest start with one index seek.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE sessions ADD COLUMN spans_trimmed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN instants_trimmed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN trimmed_before_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN page_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET page_bytes =
  (SELECT coalesce(sum(length(data)), 0) FROM span_pages WHERE session_id = sessions.id);
CREATE INDEX span_pages_by_last_start ON span_pages(session_id, last_start_ns);
)sql";

// Version 6: a session keeps the time its producer's threads waited for
// room in full rings in lossless mode, and the waits that ran out
// (SegmentHeader::full_ring_wait_ns, full_ring_wait_timeouts). Sessions
// stored before never waited: 0.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE sessions ADD COLUMN full_ring_wait_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN full_ring_wait_timeouts INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 7: whole-session statistics from op_aggregates (GetStats
// answers from them). Each row gets the DurationSketch of its ok durations
// (model/duration_sketch.h); rows from before have NULL, which readers
// take as "percentiles unknown" (the sketch's count then stays below
// ok_count for good). groups_folded counts the groups a session's `other`
// row took in when the session went over kMaxAggregateGroups.
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE op_aggregates ADD COLUMN sketch BLOB;
ALTER TABLE op_aggregates ADD COLUMN groups_folded INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 8: keeps, the ranges of a session that trimming passes over
// (storage/keep_recorder.h). A session's keeps are disjoint, so its first_ns identifies one.
constexpr const char* kSchemaV8 = R"sql(
CREATE TABLE keeps(
  session_id INTEGER NOT NULL,
  first_ns INTEGER NOT NULL,
  last_ns INTEGER NOT NULL,
  reason TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_ns INTEGER NOT NULL,
  PRIMARY KEY (session_id, first_ns)) WITHOUT ROWID;
)sql";

// Version 9: self time (a span's duration less its children's on its
// thread, Span::children_ns). op_aggregates rows keep the sum of their
// spans' self times; rows from before had no children subtracted, so
// their self time is their total.
constexpr const char* kSchemaV9 = R"sql(
ALTER TABLE op_aggregates ADD COLUMN self_ns INTEGER NOT NULL DEFAULT 0;
UPDATE op_aggregates SET self_ns = total_ns;
)sql";

// Version 10: a running session's own rolling window (SetWindow), which
// replaces the daemon's keep_last and keep_last_bytes for it. Sessions
// stored before have none: the daemon's default.
constexpr const char* kSchemaV10 = R"sql(
ALTER TABLE sessions ADD COLUMN window_overridden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN window_keep_last_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN window_keep_last_bytes INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 11: whether a session's pid was verified as its producer's in
// the daemon's PID namespace (reader::SegmentGeometry::pid_verified).
// Sessions stored before read as verified: the daemon then kept a
// session only while its pid answered as the producer.
constexpr const char* kSchemaV11 = R"sql(
ALTER TABLE sessions ADD COLUMN pid_verified INTEGER NOT NULL DEFAULT 1;
)sql";

// Version 12: source listings (issue 28), the text around a session's op
// sites as its producer shipped it (storage/listing_store.h): one row per
// distinct excerpt of a file, its text zlib-compressed, de-duplicated by
// (session, file, content hash). Sessions keep their listing counters
// (SessionListingCounts); sessions stored before had no listings: 0.
constexpr const char* kSchemaV12 = R"sql(
ALTER TABLE sessions ADD COLUMN listings_shipped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN listings_refused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN listings_dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN listings_capped INTEGER NOT NULL DEFAULT 0;
CREATE TABLE listings(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  file TEXT NOT NULL,
  first_line INTEGER NOT NULL,
  line_count INTEGER NOT NULL,
  registered INTEGER NOT NULL,
  content_hash INTEGER NOT NULL,
  text_bytes INTEGER NOT NULL,
  text_zlib BLOB NOT NULL,
  UNIQUE (session_id, file, content_hash));
)sql";

// Version 13: which sessions use which strings (storage/string_uses.h), so
// that deleting a session removes the strings only it used. What sessions
// stored before used is not known: their strings are kept, as used by
// session 0 (no session has that id).
constexpr const char* kSchemaV13 = R"sql(
CREATE TABLE session_strings(
  session_id INTEGER NOT NULL,
  string_id INTEGER NOT NULL,
  PRIMARY KEY (session_id, string_id)) WITHOUT ROWID;
CREATE INDEX session_strings_by_string ON session_strings(string_id, session_id);
INSERT INTO session_strings(session_id, string_id) SELECT 0, id FROM strings;
)sql";

// Version 14: step records (storage/step_record_writer.h), so that a
// session's steps outlive the rolling window that trims their spans: one
// row per committed step (an optrace.step span, or a ProfilerStep# range in
// a session without those), source as v1::StepSource numbers it, and per
// session how many rows it holds and how many its bound folded away
// (dropped, oldest first). Sessions stored before have no records: their
// steps are found from their spans alone, as before.
constexpr const char* kSchemaV14 = R"sql(
CREATE TABLE step_records(
  session_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  number INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  source INTEGER NOT NULL,
  PRIMARY KEY (session_id, start_ns, number)) WITHOUT ROWID;
CREATE TABLE step_record_counts(
  session_id INTEGER PRIMARY KEY,
  source INTEGER NOT NULL,
  recorded INTEGER NOT NULL,
  folded INTEGER NOT NULL);
)sql";

constexpr Migration kMigrations[] = {
    {1, kSchemaV1},   {2, kSchemaV2},   {3, kSchemaV3},   {4, kSchemaV4},   {5, kSchemaV5},
    {6, kSchemaV6},   {7, kSchemaV7},   {8, kSchemaV8},   {9, kSchemaV9},   {10, kSchemaV10},
    {11, kSchemaV11}, {12, kSchemaV12}, {13, kSchemaV13}, {14, kSchemaV14},
};
static_assert(kMigrations[std::size(kMigrations) - 1].to_version == kSchemaVersion,
              "the last migration must reach kSchemaVersion");

// The version stored in meta; 0 when there is no meta table or no entry.
Result<int64_t> StoredVersion(SqliteConnection& db) {
  Result<int64_t> has_meta =
      db.QueryInt64("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'");
  if (!has_meta.ok()) return has_meta.status();
  if (has_meta.value() == 0) return int64_t{0};
  Result<int64_t> version = db.QueryInt64("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.ok() && version.status().code() == Status::Code::kNotFound) return int64_t{0};
  return version;
}

Status NewerSchemaError(const SqliteConnection& db, int64_t version) {
  return Status::InvalidArgument(db.path() + ": schema version " + std::to_string(version) +
                                 " is newer than this build's " + std::to_string(kSchemaVersion) +
                                 "; use a newer optraced or another --db");
}

Status ApplyMigrations(SqliteConnection& db) {
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(db, SqliteTransaction::Kind::kImmediate);
  if (!transaction.ok()) return transaction.status();
  Status created = db.Exec(
      "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) "
      "WITHOUT ROWID");
  if (!created.ok()) return created;
  Result<int64_t> version = StoredVersion(db);
  if (!version.ok()) return version.status();
  if (version.value() > kSchemaVersion) return NewerSchemaError(db, version.value());
  if (version.value() == 0) {
    Result<int64_t> foreign_tables =
        db.QueryInt64("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name <> 'meta'");
    if (!foreign_tables.ok()) return foreign_tables.status();
    if (foreign_tables.value() > 0) {
      return Status::InvalidArgument(db.path() + ": holds " +
                                     std::to_string(foreign_tables.value()) +
                                     " tables but no optrace schema version: not an optrace "
                                     "database");
    }
  }
  for (const Migration& migration : kMigrations) {
    if (migration.to_version <= version.value()) continue;
    Status applied = db.Exec(migration.sql);
    if (!applied.ok()) return applied;
  }
  if (version.value() != kSchemaVersion) {
    Status stored = db.Exec("INSERT INTO meta(key, value) VALUES('schema_version', " +
                            std::to_string(kSchemaVersion) +
                            ") ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    if (!stored.ok()) return stored;
  }
  return transaction->Commit();
}

}  // namespace

Status PrepareSchema(SqliteConnection& db) {
  Result<int64_t> pages = db.QueryInt64("PRAGMA page_count");
  if (!pages.ok()) return pages.status();
  if (pages.value() == 0) {
    // Only a database without tables can still choose its vacuum mode.
    Status vacuum = db.Exec("PRAGMA auto_vacuum = INCREMENTAL");
    if (!vacuum.ok()) return vacuum;
  }
  Result<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
  if (!mode.ok()) return mode.status();
  if (mode.value() != "wal") {
    return Status::IoError(db.path() + ": cannot switch to WAL mode (journal_mode is " +
                           mode.value() + ")");
  }
  return ApplyMigrations(db);
}

Status CheckSchemaVersion(SqliteConnection& db) {
  Result<int64_t> version = StoredVersion(db);
  if (!version.ok()) return version.status();
  if (version.value() > kSchemaVersion) return NewerSchemaError(db, version.value());
  if (version.value() < kSchemaVersion) {
    return Status::InvalidArgument(
        db.path() + ": schema version " + std::to_string(version.value()) + ", expected " +
        std::to_string(kSchemaVersion) + " (optraced migrates it when it opens the database)");
  }
  return Status::Ok();
}

}  // namespace optrace::daemon
