#include "storage/row_mapping.h"

#include <limits>
#include <string_view>
#include <type_traits>

namespace optrace::daemon {
namespace {

// Binds values to consecutive parameters.
class RowBinder {
 public:
  RowBinder(SqliteStatement& statement, int first) : statement_(statement), next_(first) {}

  // Text is borrowed (SqliteStatement::BindText); a SessionState is
  // stored as its name.
  template <typename T>
  void Add(const T& value) {
    if constexpr (std::is_same_v<T, SessionState>) {
      statement_.BindText(next_++, SessionStateName(value));
    } else if constexpr (std::is_convertible_v<T, std::string_view>) {
      statement_.BindText(next_++, value);
    } else if constexpr (std::is_signed_v<T>) {
      statement_.BindInt64(next_++, value);
    } else {
      statement_.BindUint64(next_++, value);
    }
  }

 private:
  SqliteStatement& statement_;
  int next_;
};

// The stored names of SessionState (SessionStateName), back to the enum.
bool ParseSessionState(std::string_view name, SessionState* state) {
  for (SessionState candidate :
       {SessionState::kRunning, SessionState::kExited, SessionState::kCrashed}) {
    if (SessionStateName(candidate) == name) {
      *state = candidate;
      return true;
    }
  }
  return false;
}

// Reads consecutive columns, checking that each integer fits its field: a
// database file can be damaged or edited, and a value that does not fit
// must not silently become another one.
class RowReader {
 public:
  RowReader(const SqliteStatement& statement, int first) : statement_(statement), next_(first) {}

  template <typename T>
  void Next(T* out) {
    const int column = next_++;
    if constexpr (std::is_same_v<T, std::string>) {
      *out = std::string(statement_.ColumnText(column));
    } else if constexpr (std::is_same_v<T, SessionState>) {
      const std::string_view name = statement_.ColumnText(column);
      if (!ParseSessionState(name, out)) Fail(column, "unknown state " + std::string(name));
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      *out = statement_.ColumnUint64(column);  // stored as its bits
    } else {
      const int64_t value = statement_.ColumnInt64(column);
      if (value < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          (value > 0 && static_cast<uint64_t>(value) > std::numeric_limits<T>::max())) {
        Fail(column, "value " + std::to_string(value) + " out of range");
        return;
      }
      *out = static_cast<T>(value);
    }
  }

  // The first failure of the row's reads; Ok when every value fitted.
  const Status& status() const { return status_; }

 private:
  void Fail(int column, const std::string& problem) {
    if (!status_.ok()) return;
    status_ = Status::InvalidArgument("column " + std::string(statement_.ColumnName(column)) +
                                      ": " + problem);
  }

  const SqliteStatement& statement_;
  int next_;
  Status status_;
};

// Each table's columns in schema order, as X(column, field): `field` is
// the record's member that the column holds. The column text, the count,
// Bind and Read below all expand these lists.
// sessions: the columns of the drain's record, then those the store keeps.
#define OPTRACE_SESSION_COLUMNS(X) OPTRACE_SESSION_DRAIN_COLUMNS(X) OPTRACE_SESSION_STORE_COLUMNS(X)

#define OPTRACE_SESSION_DRAIN_COLUMNS(X)              \
  X(id, id)                                           \
  X(segment_name, segment_name)                       \
  X(pid, pid)                                         \
  X(uid, uid)                                         \
  X(executable, executable)                           \
  X(command_line, command_line)                       \
  X(label, label)                                     \
  X(start_ns, start_ns)                               \
  X(end_ns, end_ns)                                   \
  X(state, state)                                     \
  X(events, events)                                   \
  X(spans, spans)                                     \
  X(instants, instants)                               \
  X(open_ops, open_ops)                               \
  X(dropped_ring_full, dropped_ring_full)             \
  X(dropped_no_ring, dropped_no_ring)                 \
  X(dropped_shed, dropped_shed)                       \
  X(dropped_daemon_restart, dropped_daemon_restart)   \
  X(dropped_invalid, dropped_invalid)                 \
  X(strings_dropped, strings_dropped)                 \
  X(names_capped, names_capped)                       \
  X(full_ring_wait_ns, full_ring_wait_ns)             \
  X(full_ring_wait_timeouts, full_ring_wait_timeouts) \
  X(pid_verified, pid_verified)                       \
  X(listings_shipped, listings.shipped)               \
  X(listings_refused, listings.refused)               \
  X(listings_dropped, listings.dropped)               \
  X(listings_capped, listings.capped)

// The columns of sessions that the store keeps and batches leave alone.
#define OPTRACE_SESSION_STORE_COLUMNS(X)             \
  X(spans_trimmed, trim.spans)                       \
  X(instants_trimmed, trim.instants)                 \
  X(trimmed_before_ns, trim.before_ns)               \
  X(window_overridden, window.overridden)            \
  X(window_keep_last_ns, window.limits.keep_last_ns) \
  X(window_keep_last_bytes, window.limits.keep_last_bytes)

#define OPTRACE_INSTANT_COLUMNS(X) \
  X(ts_ns, ts_ns)                  \
  X(kind, kind)                    \
  X(level, level)                  \
  X(name, name)                    \
  X(tag, tag)                      \
  X(tid, tid)                      \
  X(parent_op_id, parent_op_id)    \
  X(value, value)

#define OPTRACE_HALF_OP_COLUMNS(X) \
  X(op_id, op_id)                  \
  X(kind, kind)                    \
  X(ts_ns, ts_ns)                  \
  X(raw_ts, raw_ts)                \
  X(parent_op_id, parent_op_id)    \
  X(device_ns, device_ns)          \
  X(name, name)                    \
  X(tag, tag)                      \
  X(srcloc, srcloc)                \
  X(tid, tid)                      \
  X(stream, stream)                \
  X(device, device)                \
  X(target, target)                \
  X(has_device_ns, has_device_ns)

// Fields of an OpAggregateRow. min_ns and max_ns stay last: BindOpAggregate
// binds them NULL without an ok span.
#define OPTRACE_OP_AGGREGATE_COLUMNS(X) \
  X(session_id, key.session)            \
  X(name, key.name)                     \
  X(tag, key.tag)                       \
  X(target, key.target)                 \
  X(device, key.device)                 \
  X(count, totals.count)                \
  X(ok_count, totals.ok_count)          \
  X(total_ns, totals.total_ns)          \
  X(self_ns, totals.self_ns)            \
  X(min_ns, totals.min_ns)              \
  X(max_ns, totals.max_ns)

// The pieces each list expands into: ", a, b, c", "0 + 1 + 1 + 1", and
// one visit(field) per column.
#define OPTRACE_COLUMN_TEXT(column, field) ", " #column
#define OPTRACE_COLUMN_ONE(column, field) +1
#define OPTRACE_VISIT_FIELD(column, field) visit(record.field);

// A list's column text without the separator in front of its first column.
consteval const char* WithoutLeadingSeparator(std::string_view separated) {
  return separated.substr(std::string_view(", ").size()).data();
}

// Calls visit(field) for each column's field of `record`, in column order;
// the record is const when binding and mutable when reading.
constexpr auto kSessionFields = [](auto& record, auto&& visit) {
  OPTRACE_SESSION_COLUMNS(OPTRACE_VISIT_FIELD)
};
constexpr auto kInstantFields = [](auto& record, auto&& visit) {
  OPTRACE_INSTANT_COLUMNS(OPTRACE_VISIT_FIELD)
};
constexpr auto kHalfOpFields = [](auto& record, auto&& visit) {
  OPTRACE_HALF_OP_COLUMNS(OPTRACE_VISIT_FIELD)
};
constexpr auto kOpAggregateFields = [](auto& record, auto&& visit) {
  OPTRACE_OP_AGGREGATE_COLUMNS(OPTRACE_VISIT_FIELD)
};

// Binds the fields of `record` to the parameters from `first`. Text
// fields are borrowed: `record` must outlive the statement's execution.
template <typename Record, typename Fields>
void BindFields(SqliteStatement& statement, int first, const Record& record, Fields fields) {
  RowBinder binder(statement, first);
  fields(record, [&](const auto& field) { binder.Add(field); });
}

// Reads a record from the columns of the current row from `first`.
template <typename Record, typename Fields>
Result<Record> ReadFields(const SqliteStatement& statement, int first, Fields fields) {
  Record record;
  RowReader row(statement, first);
  fields(record, [&](auto& field) { row.Next(&field); });
  if (!row.status().ok()) return row.status();
  return record;
}

}  // namespace

std::string Placeholders(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += i == 0 ? "?" : ", ?";
  return out;
}

const char* const kSessionColumns =
    WithoutLeadingSeparator(OPTRACE_SESSION_COLUMNS(OPTRACE_COLUMN_TEXT));
const int kSessionColumnCount = 0 OPTRACE_SESSION_COLUMNS(OPTRACE_COLUMN_ONE);
const int kSessionStoreColumnCount = 0 OPTRACE_SESSION_STORE_COLUMNS(OPTRACE_COLUMN_ONE);
const char* const kSessionDrainColumns =
    WithoutLeadingSeparator(OPTRACE_SESSION_DRAIN_COLUMNS(OPTRACE_COLUMN_TEXT));

void BindSessionRecord(SqliteStatement& statement, int first, const SessionRecord& record) {
  BindFields(statement, first, record, kSessionFields);
}

Result<SessionRecord> ReadSessionRecord(const SqliteStatement& statement, int first) {
  return ReadFields<SessionRecord>(statement, first, kSessionFields);
}

const char* const kInstantColumns =
    WithoutLeadingSeparator(OPTRACE_INSTANT_COLUMNS(OPTRACE_COLUMN_TEXT));
const int kInstantColumnCount = 0 OPTRACE_INSTANT_COLUMNS(OPTRACE_COLUMN_ONE);

void BindInstant(SqliteStatement& statement, int first, const Instant& instant) {
  BindFields(statement, first, instant, kInstantFields);
}

Result<Instant> ReadInstant(const SqliteStatement& statement, int first) {
  return ReadFields<Instant>(statement, first, kInstantFields);
}

const char* const kHalfOpColumns =
    WithoutLeadingSeparator(OPTRACE_HALF_OP_COLUMNS(OPTRACE_COLUMN_TEXT));
const int kHalfOpColumnCount = 0 OPTRACE_HALF_OP_COLUMNS(OPTRACE_COLUMN_ONE);

void BindHalfOp(SqliteStatement& statement, int first, const HalfOp& half) {
  BindFields(statement, first, half, kHalfOpFields);
}

Result<HalfOp> ReadHalfOp(const SqliteStatement& statement, int first) {
  return ReadFields<HalfOp>(statement, first, kHalfOpFields);
}

const char* const kOpAggregateColumns =
    WithoutLeadingSeparator(OPTRACE_OP_AGGREGATE_COLUMNS(OPTRACE_COLUMN_TEXT));
const int kOpAggregateColumnCount = 0 OPTRACE_OP_AGGREGATE_COLUMNS(OPTRACE_COLUMN_ONE);
static_assert(std::string_view(OPTRACE_OP_AGGREGATE_COLUMNS(OPTRACE_COLUMN_TEXT))
                  .ends_with(", min_ns, max_ns"),
              "BindOpAggregate rebinds the last two columns");

void BindOpAggregate(SqliteStatement& statement, int first, const OpAggregateKey& key,
                     const OpAggregate& totals) {
  // A temporary row is safe to bind: its fields are integers, not borrowed text.
  BindFields(statement, first, OpAggregateRow{key, totals, {}, 0}, kOpAggregateFields);
  if (totals.ok_count == 0) {  // no ok span: no minimum or maximum
    const int min_index = first + kOpAggregateColumnCount - 2;
    statement.BindNull(min_index);
    statement.BindNull(min_index + 1);
  }
}

Result<OpAggregateRow> ReadOpAggregate(const SqliteStatement& statement, int first) {
  return ReadFields<OpAggregateRow>(statement, first, kOpAggregateFields);  // NULL reads as 0
}

const char* const kOpAggregateSketchColumns = "sketch, groups_folded";

void BindOpAggregateSketch(SqliteStatement& statement, int first, std::string_view sketch_bytes,
                           uint64_t groups_folded) {
  statement.BindBlob(first, sketch_bytes);
  statement.BindUint64(first + 1, groups_folded);
}

void ReadOpAggregateSketch(const SqliteStatement& statement, int first, OpAggregateRow* row) {
  row->sketch = std::string(statement.ColumnBlob(first));
  row->groups_folded = statement.ColumnUint64(first + 1);
}

#undef OPTRACE_SESSION_COLUMNS
#undef OPTRACE_INSTANT_COLUMNS
#undef OPTRACE_HALF_OP_COLUMNS
#undef OPTRACE_OP_AGGREGATE_COLUMNS
#undef OPTRACE_COLUMN_TEXT
#undef OPTRACE_COLUMN_ONE
#undef OPTRACE_VISIT_FIELD

}  // namespace optrace::daemon
