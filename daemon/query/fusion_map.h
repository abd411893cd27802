// Which ops of session A each fused op of session B replaced: the
// fusions of CompareSessions, from per-tag totals of both sessions.
#ifndef OPTRACE_DAEMON_QUERY_FUSION_MAP_H_
#define OPTRACE_DAEMON_QUERY_FUSION_MAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "optrace/v1/optrace.pb.h"
#include "query/comparison_rows.h"

namespace optrace::daemon {

// One tag's spans in the two sessions: [0] is A, [1] is B.
struct TagSides {
  std::string tag;
  std::string name[2];  // the most common op name of the tag's spans; "" when none
  ComparisonSide side[2];
};

// What MapFusions found.
struct FusionMap {
  std::vector<v1::Fusion> fusions;  // by |total_change_ns|, largest first, ties by tag
  // Per input tag: whether it is in some fusion's group (the fused tag or
  // one of its parts), so that it is left out of the unfused rows.
  std::vector<bool> involved;
  uint64_t fused_total_ns[2] = {0, 0};  // the involved tags' totals, each tag once
};

// Parts listed per fusion; the others are counted (parts_not_listed) and
// still included in the group's totals.
inline constexpr size_t kMaxListedFusionParts = 64;

// A fusion for every tag of `tags` that is fused (IsFusedTag) and has a
// span in B: its parts in the tag's order, each with both sessions' totals
// of that tag, and its group (the fused tag and its distinct non-empty
// parts, each tag counted once) against each other, as v1::Fusion
// documents. Tags are matched exactly, as stored; empty parts match
// nothing; a part named by two fusions is in both groups and flagged
// `shared` in both, but counted once in fused_total_ns. Totals saturate at
// kMaxAggregateNs. REQUIRES: the tags are distinct. Cost: linear in the
// tags' bytes. Thread rules: pure.
FusionMap MapFusions(const std::vector<TagSides>& tags);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_FUSION_MAP_H_
