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

  template <typename T>
  RowBinder& Add(T value) {
    if constexpr (std::is_convertible_v<T, std::string_view>) {
      statement_.BindText(next_++, value);
    } else if constexpr (std::is_signed_v<T>) {
      statement_.BindInt64(next_++, value);
    } else {
      statement_.BindUint64(next_++, value);
    }
    return *this;
  }

 private:
  SqliteStatement& statement_;
  int next_;
};

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

  void Fail(int column, const std::string& problem) {
    if (!status_.ok()) return;
    status_ = Status::InvalidArgument("column " + std::string(statement_.ColumnName(column)) +
                                      ": " + problem);
  }
  int last_column() const { return next_ - 1; }
  const Status& status() const { return status_; }

 private:
  const SqliteStatement& statement_;
  int next_;
  Status status_;
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

}  // namespace

std::string Placeholders(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += i == 0 ? "?" : ", ?";
  return out;
}

const char* const kSessionColumns =
    "id, segment_name, pid, uid, executable, command_line, label, start_ns, end_ns, state, "
    "events, spans, instants, open_ops, dropped_ring_full, dropped_no_ring, dropped_shed, "
    "dropped_daemon_restart, dropped_invalid, strings_dropped, names_capped";

void BindSessionRecord(SqliteStatement& statement, int first, const SessionRecord& r) {
  RowBinder(statement, first)
      .Add(r.id)
      .Add(std::string_view(r.segment_name))
      .Add(r.pid)
      .Add(r.uid)
      .Add(std::string_view(r.executable))
      .Add(std::string_view(r.command_line))
      .Add(std::string_view(r.label))
      .Add(r.start_ns)
      .Add(r.end_ns)
      .Add(SessionStateName(r.state))
      .Add(r.events)
      .Add(r.spans)
      .Add(r.instants)
      .Add(r.open_ops)
      .Add(r.dropped_ring_full)
      .Add(r.dropped_no_ring)
      .Add(r.dropped_shed)
      .Add(r.dropped_daemon_restart)
      .Add(r.dropped_invalid)
      .Add(r.strings_dropped)
      .Add(r.names_capped);
}

Result<SessionRecord> ReadSessionRecord(const SqliteStatement& statement, int first) {
  SessionRecord r;
  RowReader row(statement, first);
  std::string state;
  row.Next(&r.id);
  row.Next(&r.segment_name);
  row.Next(&r.pid);
  row.Next(&r.uid);
  row.Next(&r.executable);
  row.Next(&r.command_line);
  row.Next(&r.label);
  row.Next(&r.start_ns);
  row.Next(&r.end_ns);
  row.Next(&state);
  if (!ParseSessionState(state, &r.state)) row.Fail(row.last_column(), "unknown state " + state);
  row.Next(&r.events);
  row.Next(&r.spans);
  row.Next(&r.instants);
  row.Next(&r.open_ops);
  row.Next(&r.dropped_ring_full);
  row.Next(&r.dropped_no_ring);
  row.Next(&r.dropped_shed);
  row.Next(&r.dropped_daemon_restart);
  row.Next(&r.dropped_invalid);
  row.Next(&r.strings_dropped);
  row.Next(&r.names_capped);
  if (!row.status().ok()) return row.status();
  return r;
}

const char* const kInstantColumns = "ts_ns, kind, level, name, tag, tid, parent_op_id, value";

void BindInstant(SqliteStatement& statement, int first, const Instant& i) {
  RowBinder(statement, first)
      .Add(i.ts_ns)
      .Add(i.kind)
      .Add(i.level)
      .Add(i.name)
      .Add(i.tag)
      .Add(i.tid)
      .Add(i.parent_op_id)
      .Add(i.value);
}

Result<Instant> ReadInstant(const SqliteStatement& statement, int first) {
  Instant i;
  RowReader row(statement, first);
  row.Next(&i.ts_ns);
  row.Next(&i.kind);
  row.Next(&i.level);
  row.Next(&i.name);
  row.Next(&i.tag);
  row.Next(&i.tid);
  row.Next(&i.parent_op_id);
  row.Next(&i.value);
  if (!row.status().ok()) return row.status();
  return i;
}

const char* const kHalfOpColumns =
    "op_id, kind, ts_ns, raw_ts, parent_op_id, device_ns, name, tag, srcloc, tid, stream, "
    "device, target, has_device_ns";

void BindHalfOp(SqliteStatement& statement, int first, const HalfOp& h) {
  RowBinder(statement, first)
      .Add(h.op_id)
      .Add(h.kind)
      .Add(h.ts_ns)
      .Add(h.raw_ts)
      .Add(h.parent_op_id)
      .Add(h.device_ns)
      .Add(h.name)
      .Add(h.tag)
      .Add(h.srcloc)
      .Add(h.tid)
      .Add(h.stream)
      .Add(h.device)
      .Add(h.target)
      .Add(h.has_device_ns);
}

Result<HalfOp> ReadHalfOp(const SqliteStatement& statement, int first) {
  HalfOp h;
  RowReader row(statement, first);
  row.Next(&h.op_id);
  row.Next(&h.kind);
  row.Next(&h.ts_ns);
  row.Next(&h.raw_ts);
  row.Next(&h.parent_op_id);
  row.Next(&h.device_ns);
  row.Next(&h.name);
  row.Next(&h.tag);
  row.Next(&h.srcloc);
  row.Next(&h.tid);
  row.Next(&h.stream);
  row.Next(&h.device);
  row.Next(&h.target);
  row.Next(&h.has_device_ns);
  if (!row.status().ok()) return row.status();
  return h;
}

const char* const kOpAggregateColumns =
    "session_id, name, tag, target, device, count, ok_count, total_ns, min_ns, max_ns";

void BindOpAggregate(SqliteStatement& statement, int first, const OpAggregateKey& key,
                     const OpAggregate& totals) {
  RowBinder(statement, first)
      .Add(key.session)
      .Add(key.name)
      .Add(key.tag)
      .Add(key.target)
      .Add(key.device)
      .Add(totals.count)
      .Add(totals.ok_count)
      .Add(totals.total_ns);
  const int min_index = first + 8;
  if (totals.ok_count == 0) {
    statement.BindNull(min_index);
    statement.BindNull(min_index + 1);
  } else {
    statement.BindUint64(min_index, totals.min_ns);
    statement.BindUint64(min_index + 1, totals.max_ns);
  }
}

Result<OpAggregateRow> ReadOpAggregate(const SqliteStatement& statement, int first) {
  OpAggregateRow a;
  RowReader row(statement, first);
  row.Next(&a.key.session);
  row.Next(&a.key.name);
  row.Next(&a.key.tag);
  row.Next(&a.key.target);
  row.Next(&a.key.device);
  row.Next(&a.totals.count);
  row.Next(&a.totals.ok_count);
  row.Next(&a.totals.total_ns);
  row.Next(&a.totals.min_ns);  // NULL (no ok span) reads as 0
  row.Next(&a.totals.max_ns);
  if (!row.status().ok()) return row.status();
  return a;
}

}  // namespace optrace::daemon
