// The rows of CompareSessions, shared by two sessions' comparison and the
// fleet's: one key's two sides, their ratios, and the order of the rows.
#ifndef OPTRACE_DAEMON_QUERY_COMPARISON_ROWS_H_
#define OPTRACE_DAEMON_QUERY_COMPARISON_ROWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "optrace/v1/optrace.pb.h"
#include "query/duration_math.h"

namespace optrace::daemon {

// One side's totals for one key.
struct ComparisonSide {
  uint64_t count = 0;     // spans of any status
  uint64_t ok_count = 0;  // spans with a duration
  uint64_t total_ns = 0;  // capped at kMaxAggregateNs

  // Adds `spans` spans, `ok_spans` of them with a duration, of `ns` in all.
  void Add(uint64_t spans, uint64_t ok_spans, uint64_t ns) {
    count += spans;
    ok_count += ok_spans;
    total_ns = AddCapped(total_ns, ns);
  }
};

// The row of `key`: counts, totals, means (total / ok_count); a key is
// only in a side that has no span of it at all; ratios are b / a, 0 when
// the key is in one side only or a denominator is 0; total_change_ns =
// total_b - total_a. Thread rules: pure.
v1::Comparison MakeComparison(std::string key, const ComparisonSide& a, const ComparisonSide& b);

// The order of comparison rows and fusions: true when the one of change x
// and key x comes before the other, that is |change| larger, or equal and
// key smaller. Thread rules: pure.
bool ComesFirstByChange(int64_t change_x, const std::string& key_x, int64_t change_y,
                        const std::string& key_y);

// `rows` in the order of ComesFirstByChange. Thread rules: pure.
void SortComparisons(std::vector<v1::Comparison>* rows);

// Fills `response` with `rows` by |total_change_ns|, largest first, ties by
// key, and the sides' totals. Thread rules: pure.
void FinishCompareResponse(std::vector<v1::Comparison> rows, uint64_t total_a_ns,
                           uint64_t total_b_ns, v1::CompareSessionsResponse* response);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_COMPARISON_ROWS_H_
