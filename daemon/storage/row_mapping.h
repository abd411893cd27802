// How the model's records map to table rows: the column lists and the
// functions that bind a record to statement parameters or read one back
// from a result row. Writer and reader both use these, and each table's
// columns are one list in row_mapping.cc from which its column text, count,
// Bind and Read all derive, so that the column order is written down once.
#ifndef OPTRACE_DAEMON_STORAGE_ROW_MAPPING_H_
#define OPTRACE_DAEMON_STORAGE_ROW_MAPPING_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "model/session_record.h"
#include "model/span.h"
#include "storage/op_aggregate.h"
#include "storage/sqlite_statement.h"

namespace optrace::daemon {

// "?, ?, ..." with `count` parameters.
std::string Placeholders(int count);

// sessions: every column, id first; the last kSessionStoreColumnCount hold
// SessionRecord::trim and ::window, which the store keeps (the window,
// retention and SetWindow).
extern const char* const kSessionColumns;
extern const int kSessionColumnCount;
extern const int kSessionStoreColumnCount;
// kSessionColumns without the store's columns: what a batch's record updates.
extern const char* const kSessionDrainColumns;
// Binds `record` to parameters `first` .. first + kSessionColumnCount - 1.
void BindSessionRecord(SqliteStatement& statement, int first, const SessionRecord& record);
// Reads a row selected with kSessionColumns starting at column `first`.
// Errors (kInvalidArgument) name the column whose value is out of range.
Result<SessionRecord> ReadSessionRecord(const SqliteStatement& statement, int first);

// instants: every column but session_id.
extern const char* const kInstantColumns;
extern const int kInstantColumnCount;
// As for sessions: kInstantColumnCount parameters from `first`, and a row
// selected with kInstantColumns; errors name the out-of-range column.
void BindInstant(SqliteStatement& statement, int first, const Instant& instant);
Result<Instant> ReadInstant(const SqliteStatement& statement, int first);

// open_halves: every column but session_id.
extern const char* const kHalfOpColumns;
extern const int kHalfOpColumnCount;
// As for sessions, with kHalfOpColumns.
void BindHalfOp(SqliteStatement& statement, int first, const HalfOp& half);
Result<HalfOp> ReadHalfOp(const SqliteStatement& statement, int first);

// op_aggregates: the key and totals, session_id first.
extern const char* const kOpAggregateColumns;
extern const int kOpAggregateColumnCount;
// Binds min_ns and max_ns as NULL when totals.ok_count == 0; reads NULL
// as 0. Otherwise as for sessions, with kOpAggregateColumns.
void BindOpAggregate(SqliteStatement& statement, int first, const OpAggregateKey& key,
                     const OpAggregate& totals);
Result<OpAggregateRow> ReadOpAggregate(const SqliteStatement& statement, int first);
// op_aggregates' other columns (schema version 7): "sketch, groups_folded".
extern const char* const kOpAggregateSketchColumns;
// Binds `sketch_bytes` (borrowed until the statement ran) and
// `groups_folded` to the parameters `first` and `first + 1`.
void BindOpAggregateSketch(SqliteStatement& statement, int first, std::string_view sketch_bytes,
                           uint64_t groups_folded);
// Reads the columns `first` and `first + 1` into row->sketch (empty for
// NULL) and row->groups_folded.
void ReadOpAggregateSketch(const SqliteStatement& statement, int first, OpAggregateRow* row);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_ROW_MAPPING_H_
