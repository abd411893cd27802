// libFuzzer target: a damaged or hostile database file. A small real store
// (two sessions with spans, instants, open halves, ring cursors, a keep and
// a listing) is built once; each input then edits a copy of it, row by row,
// and the daemon's readers run on the copy: everything a restarting daemon
// and the queries read (SpanReader's sessions, strings, spans, instants,
// halves, cursors, aggregates with their sketches, keeps, listings, step
// records, pages after a forward cursor), then QueryOps, GetStats and
// GetSteps over each session.
// Then a store opens on it and writes on top (WriteOnTop). They must
// answer or fail with an error, never crash or hang. The copy's schema
// has its NOT NULL and CHECK constraints dropped, as a hand-edited file may.
// The input is a list of edits, each of 4 bytes then a value:
//   table (mod the tables), column (mod its columns), row (mod 256: the
//   row at that offset, if any), kind: 0 int64 (8 bytes), 1 a small signed
//   int (1 byte), 2 real (8 bytes), 3 text and 4 blob (1 length byte, then
//   as many bytes), 5 NULL, 6 delete the row.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "optrace/v1/optrace.pb.h"
#include "query/session_steps.h"
#include "query/span_queries.h"
#include "storage/span_reader.h"
#include "storage/span_store.h"

namespace {

using namespace optrace::daemon;

struct Table {
  std::string name;
  std::vector<std::string> columns;
};

std::string g_pristine;
std::string g_work;
std::vector<Table> g_tables;

void Require(bool ok) {
  if (!ok) std::abort();
}

// 40 spans of `session` named by strings 1 and 2, op ids from `first_op`.
SessionSpans SpansOf(SessionId session, uint64_t first_op) {
  SessionSpans spans{session, {}};
  for (uint64_t i = first_op; i < first_op + 40; ++i) {
    Span s;
    s.op_id = i;
    s.parent_op_id = i / 2;
    s.start_ns = static_cast<int64_t>(1'000'000 + i * 1000);
    s.duration_ns = i * 10;
    s.name = static_cast<StringId>(1 + i % 2);
    s.tag = i % 3 == 0 ? 3 : 0;
    s.srcloc = 4;
    s.target = 1;
    spans.spans.push_back(s);
  }
  return spans;
}

// A keep of session 2 over span starts [first_ns, last_ns].
KeepRequest KeepOfSession2(int64_t first_ns, int64_t last_ns) {
  KeepRequest keep;
  keep.session = 2;
  keep.first_ns = first_ns;
  keep.last_ns = last_ns;
  keep.reason = "fuzz";
  return keep;
}

void BuildStore(const std::string& db) {
  StoreOptions options;
  options.db_path = db;
  auto store = SpanStore::Open(options);
  Require(store.ok());
  StoreBatch batch;
  batch.sequence = 1;
  batch.new_strings = {
      {1, "matmul"}, {2, "rms_norm"}, {3, "tag0"}, {4, "a.py:3"}, {5, "optrace.step"}};
  for (SessionId id : {1, 2}) {
    SessionRecord r;
    r.id = id;
    r.segment_name = "fuzz." + std::to_string(id);
    r.start_ns = 1'000'000;
    if (id == 2) {
      r.state = SessionState::kExited;
      r.end_ns = 2'000'000;
    }
    batch.sessions.push_back(r);
    batch.spans.push_back(SpansOf(id, 1));
    // Two explicit steps over the spans: step records.
    for (uint64_t step = 0; step < 2; ++step) {
      Span s;
      s.op_id = 1000 + step;
      s.start_ns = 1'000'000 + static_cast<int64_t>(step) * 50'000;
      s.duration_ns = 40'000;
      s.name = 5;
      batch.spans.back().spans.push_back(s);
    }
    Instant mark;
    mark.ts_ns = 1'005'000;
    mark.name = 1;
    mark.kind = 4;
    batch.instants.push_back({id, {mark}});
    HalfOp half;
    half.op_id = 99;
    half.kind = 1;
    half.ts_ns = 1'050'000;
    half.name = 2;
    batch.halves_opened.push_back({id, {half}});
    batch.cursors.push_back({id, 0, 120});
    SourceListing listing;
    listing.session = id;
    listing.file = "a.py";
    listing.first_line = 1;
    listing.text = "import torch\nx = torch.ones(3)\ny = x @ x\n";
    batch.listings.push_back(listing);
  }
  Require(store.value()->Submit(std::move(batch)));
  store.value()->Flush(10'000);
  Require(store.value()->Keep(KeepOfSession2(1'001'000, 1'010'000), 10'000).ok());
}

// Runs `sql` on `db`, aborting on failure (setup only).
void Exec(sqlite3* db, const char* sql) {
  Require(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
}

// Drops NOT NULL from every table definition, and lists the tables and
// their columns for the edits.
void LoosenSchemaAndListTables(const std::string& db_path) {
  sqlite3* db = nullptr;
  Require(sqlite3_open(db_path.c_str(), &db) == SQLITE_OK);
  Exec(db, "PRAGMA writable_schema = ON");
  Exec(db,
       "UPDATE sqlite_schema SET sql = replace(sql, ' NOT NULL', '') "
       "WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  sqlite3_stmt* version = nullptr;
  Require(sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &version, nullptr) == SQLITE_OK);
  Require(sqlite3_step(version) == SQLITE_ROW);
  const std::string bump =
      "PRAGMA schema_version = " + std::to_string(sqlite3_column_int64(version, 0) + 1);
  sqlite3_finalize(version);
  Exec(db, bump.c_str());
  Exec(db, "PRAGMA writable_schema = OFF");
  sqlite3_stmt* tables = nullptr;
  Require(sqlite3_prepare_v2(db,
                             "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT "
                             "LIKE 'sqlite_%' ORDER BY name",
                             -1, &tables, nullptr) == SQLITE_OK);
  while (sqlite3_step(tables) == SQLITE_ROW) {
    g_tables.push_back({reinterpret_cast<const char*>(sqlite3_column_text(tables, 0)), {}});
  }
  sqlite3_finalize(tables);
  for (Table& table : g_tables) {
    sqlite3_stmt* info = nullptr;
    const std::string sql = "SELECT name FROM pragma_table_info('" + table.name + "')";
    Require(sqlite3_prepare_v2(db, sql.c_str(), -1, &info, nullptr) == SQLITE_OK);
    while (sqlite3_step(info) == SQLITE_ROW) {
      table.columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(info, 0)));
    }
    sqlite3_finalize(info);
  }
  Exec(db, "PRAGMA integrity_check");
  sqlite3_close(db);
}

// Reads the input's edits one at a time.
class EditReader {
 public:
  EditReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool Has(size_t n) const { return size_ - at_ >= n; }
  uint8_t Byte() { return data_[at_++]; }
  const uint8_t* Take(size_t n) {
    const uint8_t* p = data_ + at_;
    at_ += n;
    return p;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// Binds the value the input gives for `kind` to parameter 1 of `statement`;
// false when the input ends first.
bool BindValue(EditReader& in, uint8_t kind, sqlite3_stmt* statement) {
  switch (kind) {
    case 0:
    case 2: {
      if (!in.Has(8)) return false;
      if (kind == 0) {
        int64_t v;
        std::memcpy(&v, in.Take(8), 8);
        sqlite3_bind_int64(statement, 1, v);
      } else {
        double v;
        std::memcpy(&v, in.Take(8), 8);
        sqlite3_bind_double(statement, 1, v);
      }
      return true;
    }
    case 1:
      if (!in.Has(1)) return false;
      sqlite3_bind_int64(statement, 1, static_cast<int8_t>(in.Byte()));
      return true;
    case 3:
    case 4: {
      if (!in.Has(1)) return false;
      const size_t n = in.Byte();
      if (!in.Has(n)) return false;
      const void* p = in.Take(n);
      if (kind == 3) {
        sqlite3_bind_text(statement, 1, static_cast<const char*>(p), static_cast<int>(n),
                          SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_blob(statement, 1, p, static_cast<int>(n), SQLITE_TRANSIENT);
      }
      return true;
    }
    default:
      sqlite3_bind_null(statement, 1);
      return true;
  }
}

// Applies one edit to row `row` of `table`, found by the values of all its
// columns (tables WITHOUT ROWID have no rowid to name it by). An edit the
// database refuses (a UNIQUE clash) is skipped.
bool ApplyEdit(sqlite3* db, EditReader& in) {
  if (!in.Has(4)) return false;
  const Table& table = g_tables[in.Byte() % g_tables.size()];
  const std::string& column = table.columns[in.Byte() % table.columns.size()];
  const uint8_t row = in.Byte();
  const uint8_t kind = in.Byte() % 7;
  sqlite3_stmt* select = nullptr;
  const std::string select_sql =
      "SELECT * FROM \"" + table.name + "\" LIMIT 1 OFFSET " + std::to_string(row);
  if (sqlite3_prepare_v2(db, select_sql.c_str(), -1, &select, nullptr) != SQLITE_OK) return false;
  std::string where;
  for (const std::string& c : table.columns) {
    where += (where.empty() ? "\"" : " AND \"") + c + "\" IS ?";
  }
  const std::string edit_sql =
      kind == 6 ? "DELETE FROM \"" + table.name + "\" WHERE " + where
                : "UPDATE \"" + table.name + "\" SET \"" + column + "\" = ?1 WHERE " + where;
  sqlite3_stmt* edit = nullptr;
  bool more = sqlite3_prepare_v2(db, edit_sql.c_str(), -1, &edit, nullptr) == SQLITE_OK;
  if (more) more = kind == 6 || BindValue(in, kind, edit);
  if (more && sqlite3_step(select) == SQLITE_ROW) {
    // Parameters number from 1 (DELETE) or 2 (UPDATE: ?1 is the value).
    const int first = kind == 6 ? 1 : 2;
    for (int i = 0; i < sqlite3_column_count(select); ++i) {
      sqlite3_bind_value(edit, first + i, sqlite3_column_value(select, i));
    }
    sqlite3_step(edit);
  }
  sqlite3_finalize(edit);
  sqlite3_finalize(select);
  return more;
}

// Everything the daemon reads from a database, over ids 1 and 2 and up to
// two other sessions it lists (a damaged id).
void ReadEverything(SpanReader& reader) {
  std::vector<SessionId> ids = {1, 2};
  if (auto sessions = reader.ListSessions(); sessions.ok()) {
    for (const SessionRecord& r : sessions.value()) {
      if (ids.size() < 4 && std::find(ids.begin(), ids.end(), r.id) == ids.end()) {
        ids.push_back(r.id);
      }
      reader.SessionBySegment(r.segment_name);
    }
  }
  reader.RunningSessions();
  reader.SumOfDropsExcept(ids);
  reader.SessionsByState();
  reader.LoadStrings();
  reader.String(1);
  reader.MaxSessionId();
  reader.PagesAfter(0, 1000);
  reader.SpanCountAfter(0);
  for (SessionId id : ids) {
    reader.GetSession(id);
    reader.ForEachSpan(id, INT64_MIN, INT64_MAX, [](const Span&) { return true; });
    reader.ForEachInstant(id, [](const Instant&) { return true; });
    reader.OpenHalves(id);
    reader.RingCursors(id);
    reader.Aggregates(id);
    reader.Keeps(id);
    reader.StepRecords(id);
    reader.Listings(id, "a.py");
    optrace::v1::QueryOpsRequest query;
    query.set_session_id(id);
    query.set_limit(50);
    QueryOps(reader, query);
    optrace::v1::GetStatsRequest stats;
    optrace::v1::GetStatsResponse out;
    stats.set_session_id(id);
    GetStats(reader, stats, QueryLimits{}, &out);
    optrace::v1::GetStepsRequest steps;
    optrace::v1::GetStepsResponse steps_out;
    steps.set_session_id(id);
    GetSteps(reader, steps, &steps_out);
  }
}

// What a daemon starting on the file does next: opens the store (schema,
// string uses, keeps, own windows, retention), then adds spans to session
// 1 (merged into its aggregate rows and their sketches) and a keep to
// session 2. A batch the damaged database refuses is the store's to count.
void WriteOnTop(const std::string& db_path) {
  StoreOptions options;
  options.db_path = db_path;
  options.retention_max_bytes = uint64_t{64} << 20;
  auto store = SpanStore::Open(options);
  if (!store.ok()) return;
  StoreBatch batch;
  batch.sequence = 1;
  batch.spans.push_back(SpansOf(1, 100));
  store.value()->Submit(std::move(batch));
  store.value()->Flush(10'000);
  store.value()->Keep(KeepOfSession2(1'020'000, 1'030'000), 10'000);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // In memory (tmpfs): the store's fsyncs cost nothing there, and each
  // input's copy is written and synced several times.
  static const std::string folder = "/dev/shm/optrace-database-fuzz-" + std::to_string(::getpid());
  std::filesystem::create_directories(folder);
  std::atexit([] { std::filesystem::remove_all(folder); });
  g_pristine = folder + "/pristine.db";
  g_work = folder + "/work.db";
  BuildStore(g_pristine);
  LoosenSchemaAndListTables(g_pristine);
  Require(!g_tables.empty());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(g_work + suffix);
  std::filesystem::copy_file(g_pristine, g_work);
  sqlite3* db = nullptr;
  if (sqlite3_open(g_work.c_str(), &db) != SQLITE_OK) std::abort();
  Exec(db, "PRAGMA ignore_check_constraints = ON; PRAGMA synchronous = OFF");
  EditReader in(data, size);
  while (ApplyEdit(db, in)) {
  }
  sqlite3_close(db);
  if (auto reader = SpanReader::Open(g_work); reader.ok()) ReadEverything(*reader.value());
  WriteOnTop(g_work);
  return 0;
}
