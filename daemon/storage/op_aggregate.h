// Per-op totals (op_aggregates rows): how often an op ran in a session and
// how long its successful runs took.
#ifndef OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_
#define OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "model/span.h"

namespace optrace::daemon {

// Durations are capped here: SQLite integers are signed 64-bit, and a
// (hostile or broken) producer clock can report anything.
inline constexpr uint64_t kMaxAggregateNs = std::numeric_limits<int64_t>::max();

// What one op_aggregates row is about.
struct OpAggregateKey {
  SessionId session = 0;
  StringId name = 0;
  StringId tag = 0;
  uint8_t target = 0;  // abi::TargetKind
  uint16_t device = 0;

  bool operator==(const OpAggregateKey&) const = default;
};

// The totals of one key. Value type.
struct OpAggregate {
  uint64_t count = 0;     // spans of every status
  uint64_t ok_count = 0;  // spans with status ok: the only ones the durations cover
  uint64_t total_ns = 0;  // sum of ok durations, saturating at kMaxAggregateNs
  uint64_t min_ns = 0;    // shortest ok duration; 0 when ok_count == 0
  uint64_t max_ns = 0;    // longest ok duration; 0 when ok_count == 0

  // Counts `span`; its duration counts only when its status is ok.
  void Add(const Span& span);
};

// One op_aggregates row, as SpanReader::Aggregates returns it.
struct OpAggregateRow {
  OpAggregateKey key;
  OpAggregate totals;
};

struct OpAggregateKeyHash {
  size_t operator()(const OpAggregateKey& key) const;
};

// The totals of one batch's spans, to be merged into the table with one
// upsert per key. Thread rules: a value type, one thread at a time.
class BatchAggregates {
 public:
  using Map = std::unordered_map<OpAggregateKey, OpAggregate, OpAggregateKeyHash>;

  void Add(SessionId session, const Span& span);
  const Map& entries() const { return entries_; }
  void Clear() { entries_.clear(); }

 private:
  Map entries_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_
