// Per-op totals (op_aggregates rows): how often an op ran in a session, how
// long its successful runs took and a sketch of their durations.
#ifndef OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_
#define OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/duration_sketch.h"
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

// The bound on a session's op_aggregates rows. When a batch takes a
// session past kMaxAggregateGroups rows (its `other` row aside), the
// writer folds its rows with the least total time (ties: fewest spans)
// into the session's `other` row until kAggregateGroupsAfterFold are
// left, so that the groups kept are the top ones by time at each fold. A
// group folded once and seen again starts a new row; its earlier spans
// stay in `other`. Counts and totals of the session stay exact in sum.
inline constexpr uint64_t kMaxAggregateGroups = 10'000;
inline constexpr uint64_t kAggregateGroupsAfterFold = kMaxAggregateGroups / 2;

// The name, tag, target and device of every session's `other` row: ids no
// string, target or device has (the dictionary's ids count up from 1).
inline constexpr StringId kOtherGroupString = std::numeric_limits<StringId>::max();
inline constexpr uint8_t kOtherGroupTarget = std::numeric_limits<uint8_t>::max();
inline constexpr uint16_t kOtherGroupDevice = std::numeric_limits<uint16_t>::max();

// The key of `session`'s `other` row.
inline OpAggregateKey OtherGroupKey(SessionId session) {
  return {session, kOtherGroupString, kOtherGroupString, kOtherGroupTarget, kOtherGroupDevice};
}

// Whether `key` is an `other` row's (its session aside).
inline bool IsOtherGroup(const OpAggregateKey& key) {
  return key.name == kOtherGroupString && key.tag == kOtherGroupString &&
         key.target == kOtherGroupTarget && key.device == kOtherGroupDevice;
}

// The totals of one key. Value type.
struct OpAggregate {
  uint64_t count = 0;     // spans of every status
  uint64_t ok_count = 0;  // spans with status ok: the only ones the durations cover
  uint64_t total_ns = 0;  // sum of ok durations, saturating at kMaxAggregateNs
  uint64_t self_ns = 0;   // sum of their self times (SelfNs), saturating the same way
  uint64_t min_ns = 0;    // shortest ok duration; 0 when ok_count == 0
  uint64_t max_ns = 0;    // longest ok duration; 0 when ok_count == 0

  // Counts `span`; its duration counts only when its status is ok.
  // Inline: GetStats's pass runs it for every span it reads.
  void Add(const Span& span) {
    ++count;
    if (span.status != SpanStatus::kOk) return;
    const uint64_t duration = std::min(span.duration_ns, kMaxAggregateNs);
    min_ns = ok_count == 0 ? duration : std::min(min_ns, duration);
    max_ns = std::max(max_ns, duration);
    total_ns = duration > kMaxAggregateNs - total_ns ? kMaxAggregateNs : total_ns + duration;
    const uint64_t self = std::min(SelfNs(span), kMaxAggregateNs);
    self_ns = self > kMaxAggregateNs - self_ns ? kMaxAggregateNs : self_ns + self;
    ++ok_count;
  }

  // Adds `other`'s spans: as if Add had been given them too.
  void Merge(const OpAggregate& other);
};

// One op_aggregates row, as SpanReader::Aggregates returns it.
struct OpAggregateRow {
  OpAggregateKey key;
  OpAggregate totals;
  // The DurationSketch bytes of the ok durations as stored (untrusted;
  // empty when NULL: a row written before schema version 7). The sketch
  // covers all of totals.ok_count only when its Count() equals it.
  std::string sketch;
  uint64_t groups_folded = 0;  // `other` rows: groups folded into it so far
};

struct OpAggregateKeyHash {
  size_t operator()(const OpAggregateKey& key) const;
};

// One key on its way into op_aggregates: the batch being written, and
// what earlier committed batches left for its stored sketch.
struct PendingAggregate {
  OpAggregate totals;                  // the batch's spans
  std::vector<uint64_t> ok_durations;  // the batch's, capped at kMaxAggregateNs
  // Ok durations of committed batches not yet merged into the stored
  // sketch. Kept across batches, so that its run of buckets settles and
  // counting a duration is an increment (rebuilding a sketch per 20 ms
  // batch cost BM_SpanStore_Commit a quarter of its time).
  DurationSketch unwritten;

  // Counts `span` in the batch.
  void Add(const Span& span);

  // `unwritten` with the batch's durations added.
  DurationSketch UnwrittenWithBatch() const;
};

// The op_aggregates work of the batch being written and the sketches that
// committed batches left unwritten (BatchWriter writes sketches at most
// every second). Add counts the batch's spans; after the transaction,
// Committed or RolledBack ends the batch. entries() may hold keys with no
// span in the batch (totals.count == 0), which callers skip, and with an
// empty `unwritten`. Thread rules: a value type, one thread at a time.
class PendingAggregates {
 public:
  using Map = std::unordered_map<OpAggregateKey, PendingAggregate, OpAggregateKeyHash>;
  // Keys kept for the next batch (mostly of the same ops) once their
  // sketches were written; above this, their memory is given back.
  static constexpr size_t kKeptKeys = 4096;

  void Add(SessionId session, const Span& span);
  const Map& entries() const { return entries_; }

  // The batch committed. `sketches_written`: it carried every key's
  // UnwrittenWithBatch() into the table, so nothing is left unwritten;
  // otherwise the batch's durations join `unwritten`.
  void Committed(bool sketches_written);

  // The batch was rolled back: forgets its totals and durations.
  void RolledBack();

  // Keys holding unwritten durations (memory: a sketch each).
  size_t unwritten_keys() const { return unwritten_keys_; }

 private:
  // Forgets the batch's totals and durations.
  void ClearBatch();

  Map entries_;
  size_t unwritten_keys_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_OP_AGGREGATE_H_
