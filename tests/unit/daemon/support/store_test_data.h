// Test data for the storage tests: spans, sessions and batches built the
// way the drain thread builds them, comparisons of the model's records,
// and direct looks into a database file.
#ifndef OPTRACE_TESTS_UNIT_DAEMON_STORE_TEST_DATA_H_
#define OPTRACE_TESTS_UNIT_DAEMON_STORE_TEST_DATA_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "model/session_record.h"
#include "model/span.h"
#include "model/store_batch.h"
#include "storage/batch_writer.h"
#include "storage/span_reader.h"
#include "storage/sqlite_connection.h"
#include "storage/string_uses.h"

namespace optrace::daemon {

// Field-by-field equality and printing, for EXPECT_EQ on records.
bool operator==(const Span& a, const Span& b);
bool operator==(const Instant& a, const Instant& b);
bool operator==(const HalfOp& a, const HalfOp& b);
bool operator==(const SessionRecord& a, const SessionRecord& b);
bool operator==(const RingCursor& a, const RingCursor& b);
void PrintTo(const Span& span, std::ostream* os);
void PrintTo(const SessionRecord& record, std::ostream* os);

}  // namespace optrace::daemon

namespace optrace::testing {

using daemon::HalfOp;
using daemon::Instant;
using daemon::SessionId;
using daemon::SessionRecord;
using daemon::SessionState;
using daemon::Span;
using daemon::SpanStatus;
using daemon::StoreBatch;

// A realistic ok span: op `op_id` of `name` started at `start_ns`.
Span MakeSpan(uint64_t op_id, int64_t start_ns, daemon::StringId name = 1,
              uint64_t duration_ns = 1000, SpanStatus status = SpanStatus::kOk);

// `count` ok spans of session-like shape: op ids from `first_op_id` up,
// starts 1 us apart from `first_start_ns`, names cycling through 1..50.
std::vector<Span> SpanRun(uint64_t first_op_id, int64_t first_start_ns, size_t count);

// Spans whose every field is random, a quarter of the values taken from
// the extremes of their type (0, max, min, max - 1...).
std::vector<Span> RandomSpans(std::mt19937_64& rng, size_t count);

// A session record with a unique segment name derived from `id`.
SessionRecord MakeSession(SessionId id, SessionState state = SessionState::kRunning,
                          int64_t start_ns = 1'000'000, int64_t end_ns = 0);

// A half with every field set from `op_id`.
HalfOp MakeHalf(uint64_t op_id, uint8_t kind);

// Every span of `session` in [min_start_ns, max_start_ns], read through
// `reader`; records a test failure when the read fails.
std::vector<Span> ReadSpans(daemon::SpanReader& reader, SessionId session,
                            int64_t min_start_ns = std::numeric_limits<int64_t>::min(),
                            int64_t max_start_ns = std::numeric_limits<int64_t>::max());

// Opens (creating it) the database at `db_path` read-write with the
// current schema, as the store's writer does; records a test failure
// (nullptr) when it cannot.
std::unique_ptr<daemon::SqliteConnection> OpenPreparedDb(const std::string& db_path);

// The store's batch writer on `db` and the string uses it records, as the
// store makes them.
struct StoreWriter {
  std::unique_ptr<daemon::StringUses> uses;
  std::unique_ptr<daemon::BatchWriter> writer;
};

// Makes a StoreWriter on `db` (which must outlive it); records a test
// failure (null members) when it cannot.
StoreWriter OpenStoreWriter(daemon::SqliteConnection& db,
                            std::chrono::milliseconds sketch_write_interval);

// Opens a reader on `db_path`, failing the test (nullptr) when it cannot.
std::unique_ptr<daemon::SpanReader> OpenReader(const std::string& db_path);

// Runs `sql` on its own read-write connection to `db_path` (created if
// absent) and returns the first column of every row as text ("" for NULL);
// "error: ..." on failure.
std::vector<std::string> QueryColumn(const std::string& db_path, const std::string& sql);

// The result of PRAGMA integrity_check: "ok" for a sound file.
std::string IntegrityCheck(const std::string& db_path);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_UNIT_DAEMON_STORE_TEST_DATA_H_
