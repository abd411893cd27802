#include "store_test_data.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <array>
#include <tuple>

#include "storage/schema.h"

namespace optrace::daemon {
namespace {

auto Fields(const Span& s) {
  return std::tie(s.op_id, s.parent_op_id, s.start_ns, s.duration_ns, s.device_ns, s.name, s.tag,
                  s.srcloc, s.launch_tid, s.complete_tid, s.stream, s.device, s.target, s.status,
                  s.has_device_ns);
}
auto Fields(const Instant& i) {
  return std::tie(i.ts_ns, i.parent_op_id, i.value, i.name, i.tag, i.tid, i.kind, i.level);
}
auto Fields(const HalfOp& h) {
  return std::tie(h.op_id, h.kind, h.ts_ns, h.raw_ts, h.parent_op_id, h.device_ns, h.name, h.tag,
                  h.srcloc, h.tid, h.stream, h.device, h.target, h.has_device_ns);
}
auto Fields(const SessionRecord& r) {
  return std::tie(r.id, r.segment_name, r.pid, r.uid, r.executable, r.command_line, r.label,
                  r.start_ns, r.end_ns, r.state, r.events, r.spans, r.instants, r.open_ops,
                  r.dropped_ring_full, r.dropped_no_ring, r.dropped_shed, r.dropped_daemon_restart,
                  r.dropped_invalid, r.strings_dropped, r.names_capped, r.full_ring_wait_ns,
                  r.full_ring_wait_timeouts, r.listings, r.trim);
}

}  // namespace

bool operator==(const Span& a, const Span& b) { return Fields(a) == Fields(b); }
bool operator==(const Instant& a, const Instant& b) { return Fields(a) == Fields(b); }
bool operator==(const HalfOp& a, const HalfOp& b) { return Fields(a) == Fields(b); }
bool operator==(const SessionRecord& a, const SessionRecord& b) { return Fields(a) == Fields(b); }
bool operator==(const RingCursor& a, const RingCursor& b) {
  return std::tie(a.session, a.ring, a.position) == std::tie(b.session, b.ring, b.position);
}

void PrintTo(const Span& s, std::ostream* os) {
  *os << "{op " << s.op_id << " parent " << s.parent_op_id << " start " << s.start_ns << " dur "
      << s.duration_ns << " dev_ns " << s.device_ns << " name " << s.name << " tag " << s.tag
      << " src " << s.srcloc << " tids " << s.launch_tid << "/" << s.complete_tid << " stream "
      << s.stream << " device " << s.device << " target " << int{s.target} << " "
      << SpanStatusName(s.status) << (s.has_device_ns ? " has_dev_ns" : "") << "}";
}

void PrintTo(const SessionRecord& r, std::ostream* os) {
  *os << "{session " << r.id << " " << r.segment_name << " " << SessionStateName(r.state)
      << " start " << r.start_ns << " end " << r.end_ns << " events " << r.events << " spans "
      << r.spans << "}";
}

}  // namespace optrace::daemon

namespace optrace::testing {

Span MakeSpan(uint64_t op_id, int64_t start_ns, daemon::StringId name, uint64_t duration_ns,
              SpanStatus status) {
  Span s;
  s.op_id = op_id;
  s.parent_op_id = op_id > 1 ? op_id - 1 : 0;
  s.start_ns = start_ns;
  s.duration_ns = status == SpanStatus::kOk ? duration_ns : 0;
  s.device_ns = duration_ns / 2;
  s.has_device_ns = true;
  s.name = name;
  s.tag = name + 100;
  s.srcloc = name + 200;
  s.launch_tid = 4242;
  s.complete_tid = status == SpanStatus::kOk ? 4243 : 0;
  s.stream = 7;
  s.device = 1;
  s.target = 2;
  s.status = status;
  return s;
}

std::vector<Span> SpanRun(uint64_t first_op_id, int64_t first_start_ns, size_t count) {
  std::vector<Span> spans;
  spans.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    spans.push_back(MakeSpan(first_op_id + i, first_start_ns + static_cast<int64_t>(i) * 1000,
                             static_cast<daemon::StringId>(1 + i % 50), 500 + i % 300));
  }
  return spans;
}

namespace {

// A random value of T, one time in four an extreme of its range.
template <typename T>
T RandomField(std::mt19937_64& rng) {
  constexpr std::array<T, 5> kExtremes = {std::numeric_limits<T>::min(),
                                          std::numeric_limits<T>::max(), T{0}, T{1},
                                          static_cast<T>(std::numeric_limits<T>::max() - 1)};
  if (rng() % 4 == 0) return kExtremes[rng() % kExtremes.size()];
  return static_cast<T>(rng());
}

}  // namespace

std::vector<Span> RandomSpans(std::mt19937_64& rng, size_t count) {
  std::vector<Span> spans(count);
  for (Span& s : spans) {
    s.op_id = RandomField<uint64_t>(rng);
    s.parent_op_id = RandomField<uint64_t>(rng);
    s.start_ns = RandomField<int64_t>(rng);
    s.duration_ns = RandomField<uint64_t>(rng);
    s.device_ns = RandomField<uint64_t>(rng);
    s.name = RandomField<uint32_t>(rng);
    s.tag = RandomField<uint32_t>(rng);
    s.srcloc = RandomField<uint32_t>(rng);
    s.launch_tid = RandomField<uint32_t>(rng);
    s.complete_tid = RandomField<uint32_t>(rng);
    s.stream = RandomField<uint32_t>(rng);
    s.device = RandomField<uint16_t>(rng);
    s.target = RandomField<uint8_t>(rng);
    s.status = static_cast<SpanStatus>(rng() % 4);
    s.has_device_ns = rng() % 2 == 0;
    s.children_ns = RandomField<uint64_t>(rng);
  }
  return spans;
}

SessionRecord MakeSession(SessionId id, SessionState state, int64_t start_ns, int64_t end_ns) {
  SessionRecord r;
  r.id = id;
  r.segment_name = "/optest.0." + std::to_string(1000 + id) + ".abcd" + std::to_string(id);
  r.pid = static_cast<uint32_t>(1000 + id);
  r.uid = 1001;
  r.executable = "/usr/bin/python3";
  r.command_line = "python3 train.py --session " + std::to_string(id);
  r.label = "run-" + std::to_string(id);
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.state = state;
  r.events = 10 * id;
  r.spans = 5 * id;
  r.dropped_ring_full = id;
  r.strings_dropped = 3;
  r.names_capped = 40 + id;
  return r;
}

HalfOp MakeHalf(uint64_t op_id, uint8_t kind) {
  HalfOp h;
  h.op_id = op_id;
  h.kind = kind;
  h.ts_ns = static_cast<int64_t>(op_id) * 1000;
  h.raw_ts = op_id * 3;
  h.parent_op_id = op_id / 2;
  h.device_ns = op_id % 7;
  h.has_device_ns = op_id % 2 == 0;  // a measured 0 ns included (op 14, ...)
  h.name = 5;
  h.tag = 6;
  h.srcloc = 7;
  h.tid = 99;
  h.stream = 3;
  h.device = 2;
  h.target = 1;
  return h;
}

std::vector<Span> ReadSpans(daemon::SpanReader& reader, SessionId session, int64_t min_start_ns,
                            int64_t max_start_ns) {
  std::vector<Span> spans;
  const Status status = reader.ForEachSpan(session, min_start_ns, max_start_ns, [&](const Span& s) {
    spans.push_back(s);
    return true;
  });
  EXPECT_TRUE(status.ok()) << status.message();
  return spans;
}

std::unique_ptr<daemon::SqliteConnection> OpenPreparedDb(const std::string& db_path) {
  auto db = daemon::SqliteConnection::Open(db_path, daemon::SqliteOpenMode::kReadWriteCreate, 1000);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return nullptr;
  const Status prepared = daemon::PrepareSchema(*db.value());
  EXPECT_TRUE(prepared.ok()) << prepared.message();
  return prepared.ok() ? std::move(db).value() : nullptr;
}

StoreWriter OpenStoreWriter(daemon::SqliteConnection& db,
                            std::chrono::milliseconds sketch_write_interval) {
  StoreWriter out;
  auto uses = daemon::StringUses::Create(db);
  EXPECT_TRUE(uses.ok()) << uses.status().message();
  if (!uses.ok()) return out;
  out.uses = std::move(uses).value();
  auto writer = daemon::BatchWriter::Create(db, sketch_write_interval, out.uses.get());
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  if (writer.ok()) out.writer = std::move(writer).value();
  return out;
}

std::unique_ptr<daemon::SpanReader> OpenReader(const std::string& db_path) {
  auto reader = daemon::SpanReader::Open(db_path);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return nullptr;
  return std::move(reader).value();
}

std::vector<std::string> QueryColumn(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> rows;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    rows.push_back(std::string("error: ") + sqlite3_errmsg(db));
    sqlite3_close_v2(db);
    return rows;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    rows.push_back(std::string("error: ") + sqlite3_errmsg(db));
  } else {
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      rows.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    if (rc != SQLITE_DONE) rows.push_back(std::string("error: ") + sqlite3_errmsg(db));
  }
  sqlite3_finalize(stmt);
  sqlite3_close_v2(db);
  return rows;
}

std::string IntegrityCheck(const std::string& db_path) {
  const std::vector<std::string> rows = QueryColumn(db_path, "PRAGMA integrity_check");
  std::string out;
  for (const std::string& row : rows) out += (out.empty() ? "" : "; ") + row;
  return out;
}

}  // namespace optrace::testing
