// row_mapping: the column texts the schema and queries depend on, and
// records bound to a real SQLite table, checked column by column by name,
// and read back field for field.
#include "storage/row_mapping.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "storage/sqlite_connection.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

class RowMappingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<SqliteConnection>> db =
        SqliteConnection::Open(dir_.path() + "/rows.db", SqliteOpenMode::kReadWriteCreate, 1000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
  }

  // Creates table `rows` with `columns` (no types: each value is stored as
  // bound) and returns the statement that inserts `count` values into them.
  SqliteStatement CreateRows(const std::string& columns, int count) {
    EXPECT_TRUE(db_->Exec("CREATE TABLE rows(" + columns + ")").ok());
    Result<SqliteStatement> insert =
        db_->Prepare("INSERT INTO rows(" + columns + ") VALUES(" + Placeholders(count) + ")");
    EXPECT_TRUE(insert.ok()) << insert.status().message();
    return std::move(insert).value();
  }

  // The statement that selects `columns` of the one row, stepped to it.
  SqliteStatement SelectRow(const std::string& columns) {
    Result<SqliteStatement> select = db_->Prepare("SELECT " + columns + " FROM rows");
    EXPECT_TRUE(select.ok()) << select.status().message();
    Result<bool> row = select.value().Step();
    EXPECT_TRUE(row.ok() && row.value());
    return std::move(select).value();
  }

  // The row's value of each of `columns` ("a, b, c") as text, each selected
  // by its name: what the schema and queries see in that column.
  std::vector<std::string> StoredValues(const std::string& columns) {
    std::vector<std::string> values;
    std::istringstream list(columns);
    for (std::string column; std::getline(list >> std::ws, column, ',');) {
      Result<std::string> value = db_->QueryText("SELECT CAST(" + column + " AS TEXT) FROM rows");
      EXPECT_TRUE(value.ok()) << column << ": " << value.status().message();
      values.push_back(value.ok() ? value.value() : "");
    }
    return values;
  }

  testing::TempFolder dir_;
  std::unique_ptr<SqliteConnection> db_;
};

TEST_F(RowMappingTest, ColumnTexts_SchemaOrder_Unchanged) {
  EXPECT_STREQ(kSessionColumns,
               "id, segment_name, pid, uid, executable, command_line, label, start_ns, end_ns, "
               "state, events, spans, instants, open_ops, dropped_ring_full, dropped_no_ring, "
               "dropped_shed, dropped_daemon_restart, dropped_invalid, strings_dropped, "
               "names_capped, full_ring_wait_ns, full_ring_wait_timeouts, pid_verified, "
               "listings_shipped, listings_refused, listings_dropped, listings_capped, "
               "spans_trimmed, instants_trimmed, trimmed_before_ns, window_overridden, "
               "window_keep_last_ns, window_keep_last_bytes");
  EXPECT_EQ(kSessionColumnCount, 34);
  EXPECT_EQ(kSessionStoreColumnCount, 6);
  EXPECT_STREQ(kSessionDrainColumns,
               "id, segment_name, pid, uid, executable, command_line, label, start_ns, end_ns, "
               "state, events, spans, instants, open_ops, dropped_ring_full, dropped_no_ring, "
               "dropped_shed, dropped_daemon_restart, dropped_invalid, strings_dropped, "
               "names_capped, full_ring_wait_ns, full_ring_wait_timeouts, pid_verified, "
               "listings_shipped, listings_refused, listings_dropped, listings_capped");
  EXPECT_STREQ(kInstantColumns, "ts_ns, kind, level, name, tag, tid, parent_op_id, value");
  EXPECT_EQ(kInstantColumnCount, 8);
  EXPECT_STREQ(kHalfOpColumns,
               "op_id, kind, ts_ns, raw_ts, parent_op_id, device_ns, name, tag, srcloc, tid, "
               "stream, device, target, has_device_ns");
  EXPECT_EQ(kHalfOpColumnCount, 14);
  EXPECT_STREQ(kOpAggregateColumns,
               "session_id, name, tag, target, device, count, ok_count, total_ns, self_ns, min_ns, "
               "max_ns");
  EXPECT_EQ(kOpAggregateColumnCount, 11);
}

TEST_F(RowMappingTest, SessionRecord_BindThenRead_EveryFieldBack) {
  // Every field a different value, so that two swapped columns differ.
  const SessionRecord written{
      .id = 1,
      .segment_name = "segment",
      .pid = 2,
      .uid = 3,
      .pid_verified = false,
      .executable = "executable",
      .command_line = "command line",
      .label = "label",
      .start_ns = -4,
      .end_ns = 5,
      .state = SessionState::kCrashed,
      .events = 6,
      .spans = 7,
      .instants = 8,
      .open_ops = 9,
      .dropped_ring_full = 10,
      .dropped_no_ring = 11,
      .dropped_shed = 12,
      .dropped_daemon_restart = 13,
      .dropped_invalid = 14,
      .strings_dropped = 15,
      .names_capped = 16,
      .full_ring_wait_ns = 20,
      .full_ring_wait_timeouts = 21,
      .listings = {.shipped = 24, .refused = 25, .dropped = 26, .capped = 27},
      .trim = {.spans = 17, .instants = 18, .before_ns = -19},
      .window = {.overridden = true, .limits = {.keep_last_ns = 22, .keep_last_bytes = 23}}};
  SqliteStatement insert = CreateRows(kSessionColumns, kSessionColumnCount);
  BindSessionRecord(insert, 1, written);
  ASSERT_TRUE(insert.Run().ok());
  Result<SessionRecord> read = ReadSessionRecord(SelectRow(kSessionColumns), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const SessionRecord& r = read.value();
  EXPECT_EQ(r.id, 1u);
  EXPECT_EQ(r.segment_name, "segment");
  EXPECT_EQ(r.pid, 2u);
  EXPECT_EQ(r.uid, 3u);
  EXPECT_FALSE(r.pid_verified);
  EXPECT_EQ(r.executable, "executable");
  EXPECT_EQ(r.command_line, "command line");
  EXPECT_EQ(r.label, "label");
  EXPECT_EQ(r.start_ns, -4);
  EXPECT_EQ(r.end_ns, 5);
  EXPECT_EQ(r.state, SessionState::kCrashed);
  EXPECT_EQ(r.events, 6u);
  EXPECT_EQ(r.spans, 7u);
  EXPECT_EQ(r.instants, 8u);
  EXPECT_EQ(r.open_ops, 9u);
  EXPECT_EQ(r.dropped_ring_full, 10u);
  EXPECT_EQ(r.dropped_no_ring, 11u);
  EXPECT_EQ(r.dropped_shed, 12u);
  EXPECT_EQ(r.dropped_daemon_restart, 13u);
  EXPECT_EQ(r.dropped_invalid, 14u);
  EXPECT_EQ(r.strings_dropped, 15u);
  EXPECT_EQ(r.names_capped, 16u);
  EXPECT_EQ(r.full_ring_wait_ns, 20u);
  EXPECT_EQ(r.full_ring_wait_timeouts, 21u);
  EXPECT_EQ(r.listings, written.listings);
  EXPECT_EQ(r.trim, written.trim);
  EXPECT_EQ(r.window, written.window);
  EXPECT_EQ(
      StoredValues(kSessionColumns),
      (std::vector<std::string>{
          "1",   "segment", "2",  "3", "executable", "command line", "label", "-4", "5",  "crashed",
          "6",   "7",       "8",  "9", "10",         "11",           "12",    "13", "14", "15",
          "16",  "20",      "21", "0", "24",         "25",           "26",    "27", "17", "18",
          "-19", "1",       "22", "23"}));
}

TEST_F(RowMappingTest, Malicious_UnknownSessionState_ErrorNamesColumn) {
  SqliteStatement insert = CreateRows(kSessionColumns, kSessionColumnCount);
  SessionRecord written;
  written.id = 1;
  BindSessionRecord(insert, 1, written);
  ASSERT_TRUE(insert.Run().ok());
  ASSERT_TRUE(db_->Exec("UPDATE rows SET state = 'zombie'").ok());
  Result<SessionRecord> read = ReadSessionRecord(SelectRow(kSessionColumns), 0);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(read.status().message().find("column state: unknown state zombie"), std::string::npos)
      << read.status().message();
}

TEST_F(RowMappingTest, Instant_BindThenRead_EveryFieldBack) {
  const Instant written{.ts_ns = -1,
                        .parent_op_id = 2,
                        .value = -3,
                        .name = 4,
                        .tag = 5,
                        .tid = 6,
                        .kind = 7,
                        .level = 8};
  SqliteStatement insert = CreateRows(kInstantColumns, kInstantColumnCount);
  BindInstant(insert, 1, written);
  ASSERT_TRUE(insert.Run().ok());
  EXPECT_EQ(StoredValues(kInstantColumns),
            (std::vector<std::string>{"-1", "7", "8", "4", "5", "6", "2", "-3"}));
  Result<Instant> read = ReadInstant(SelectRow(kInstantColumns), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value().ts_ns, -1);
  EXPECT_EQ(read.value().parent_op_id, 2u);
  EXPECT_EQ(read.value().value, -3);
  EXPECT_EQ(read.value().name, 4u);
  EXPECT_EQ(read.value().tag, 5u);
  EXPECT_EQ(read.value().tid, 6u);
  EXPECT_EQ(read.value().kind, 7u);
  EXPECT_EQ(read.value().level, 8u);
}

TEST_F(RowMappingTest, HalfOp_BindThenRead_EveryFieldBack) {
  const HalfOp written{.op_id = 1,
                       .kind = 2,
                       .ts_ns = -3,
                       .raw_ts = 4,
                       .parent_op_id = 5,
                       .device_ns = 6,
                       .name = 7,
                       .tag = 8,
                       .srcloc = 9,
                       .tid = 10,
                       .stream = 11,
                       .device = 12,
                       .target = 13,
                       .has_device_ns = true};
  SqliteStatement insert = CreateRows(kHalfOpColumns, kHalfOpColumnCount);
  BindHalfOp(insert, 1, written);
  ASSERT_TRUE(insert.Run().ok());
  EXPECT_EQ(StoredValues(kHalfOpColumns),
            (std::vector<std::string>{"1", "2", "-3", "4", "5", "6", "7", "8", "9", "10", "11",
                                      "12", "13", "1"}));
  Result<HalfOp> read = ReadHalfOp(SelectRow(kHalfOpColumns), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const HalfOp& h = read.value();
  EXPECT_EQ(h.op_id, 1u);
  EXPECT_EQ(h.kind, 2u);
  EXPECT_EQ(h.ts_ns, -3);
  EXPECT_EQ(h.raw_ts, 4u);
  EXPECT_EQ(h.parent_op_id, 5u);
  EXPECT_EQ(h.device_ns, 6u);
  EXPECT_EQ(h.name, 7u);
  EXPECT_EQ(h.tag, 8u);
  EXPECT_EQ(h.srcloc, 9u);
  EXPECT_EQ(h.tid, 10u);
  EXPECT_EQ(h.stream, 11u);
  EXPECT_EQ(h.device, 12u);
  EXPECT_EQ(h.target, 13u);
  EXPECT_TRUE(h.has_device_ns);
}

TEST_F(RowMappingTest, OpAggregate_BindThenRead_EveryFieldBack) {
  const OpAggregateKey key{.session = 1, .name = 2, .tag = 3, .target = 4, .device = 5};
  OpAggregate totals;
  totals.count = 6;
  totals.ok_count = 7;
  totals.total_ns = 8;
  totals.self_ns = 9;
  totals.min_ns = 10;
  totals.max_ns = 11;
  SqliteStatement insert = CreateRows(kOpAggregateColumns, kOpAggregateColumnCount);
  BindOpAggregate(insert, 1, key, totals);
  ASSERT_TRUE(insert.Run().ok());
  EXPECT_EQ(StoredValues(kOpAggregateColumns),
            (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}));
  Result<OpAggregateRow> read = ReadOpAggregate(SelectRow(kOpAggregateColumns), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value().key, key);
  EXPECT_EQ(read.value().totals.count, 6u);
  EXPECT_EQ(read.value().totals.ok_count, 7u);
  EXPECT_EQ(read.value().totals.total_ns, 8u);
  EXPECT_EQ(read.value().totals.self_ns, 9u);
  EXPECT_EQ(read.value().totals.min_ns, 10u);
  EXPECT_EQ(read.value().totals.max_ns, 11u);
}

TEST_F(RowMappingTest, OpAggregate_NoOkSpan_MinAndMaxStoredNullReadAsZero) {
  OpAggregate totals;
  totals.count = 3;
  totals.min_ns = 9;  // not meaningful without an ok span
  totals.max_ns = 10;
  SqliteStatement insert = CreateRows(kOpAggregateColumns, kOpAggregateColumnCount);
  BindOpAggregate(insert, 1, OpAggregateKey{.session = 1}, totals);
  ASSERT_TRUE(insert.Run().ok());
  Result<int64_t> nulls =
      db_->QueryInt64("SELECT (min_ns IS NULL) + (max_ns IS NULL) + (total_ns IS NULL) FROM rows");
  ASSERT_TRUE(nulls.ok()) << nulls.status().message();
  EXPECT_EQ(nulls.value(), 2);
  Result<OpAggregateRow> read = ReadOpAggregate(SelectRow(kOpAggregateColumns), 0);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value().totals.count, 3u);
  EXPECT_EQ(read.value().totals.min_ns, 0u);
  EXPECT_EQ(read.value().totals.max_ns, 0u);
}

}  // namespace
}  // namespace optrace::daemon
