// The rules of keeps apart from the SQL that stores them (keep_recorder.h):
// how a new keep merges with a session's keeps, and the budgets that bound
// what keeps may hold.
#ifndef OPTRACE_DAEMON_STORAGE_KEEP_RANGES_H_
#define OPTRACE_DAEMON_STORAGE_KEEP_RANGES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "model/keep.h"

namespace optrace::daemon {

// A merged reason stops taking further reasons past this many bytes.
inline constexpr size_t kMaxKeepReasonBytes = 256;

// `added` merged with the keeps it overlaps or touches.
struct KeepMerge {
  KeepRecord merged;             // bytes as in `added`: the caller measures the union
  std::vector<size_t> absorbed;  // indexes into `existing`, ascending
};

// Merges `added` with every keep of `existing` (one session's keeps,
// pairwise disjoint and not adjacent) that overlaps it or is adjacent to it
// (one ends the nanosecond before the other starts): the merged range is
// their union, its reason theirs in start order without repeats (joined by
// "; ", none added once kMaxKeepReasonBytes is reached), and its created_ns
// the earliest. Keeps the invariant: the result and the keeps not absorbed
// are again disjoint and not adjacent. REQUIRES: added.first_ns <=
// added.last_ns. Thread rules: pure.
KeepMerge MergeKeep(std::span<const KeepRecord> existing, const KeepRecord& added);

// What keeps may hold, in page data bytes; 0 = no bound of that kind.
struct KeepBudget {
  uint64_t session_max_bytes = 0;
  uint64_t uid_max_bytes = 0;
  // All keeps of the database: half of retention_max_bytes, so that keeps
  // can never hold the database over its cap (SpanStore::Open sets it).
  uint64_t database_max_bytes = 0;
  // How far past the session's newest stored span start a keep may reach
  // (keep_after): pages that arrive later in a kept range are kept without
  // having been counted, so a range is cut at newest + this. 0 = no bound.
  int64_t max_ahead_ns = 0;
};

// Kept bytes held now, by the session, its uid and the whole database,
// leaving out the keeps a merge absorbs.
struct KeptBytes {
  uint64_t session = 0;
  uint64_t uid = 0;
  uint64_t database = 0;
};

// Whether a keep of `bytes` more on top of `held` fits `budget`. Fails with
// kResourceExhausted naming the session, the budget, what it holds and the
// bytes asked. Thread rules: pure.
Status CheckKeepBudget(const KeepBudget& budget, const KeptBytes& held, uint64_t bytes,
                       SessionId session, uint32_t uid);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_KEEP_RANGES_H_
