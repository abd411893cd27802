#include "query/comparison_rows.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "query/duration_math.h"

namespace optrace::daemon {

v1::Comparison MakeComparison(std::string key, const ComparisonSide& a, const ComparisonSide& b) {
  v1::Comparison out;
  out.set_key(std::move(key));
  out.set_count_a(a.count);
  out.set_count_b(b.count);
  out.set_total_a_ns(a.total_ns);
  out.set_total_b_ns(b.total_ns);
  out.set_mean_a_ns(Mean(a.total_ns, a.ok_count));
  out.set_mean_b_ns(Mean(b.total_ns, b.ok_count));
  // A key is in a side when the side has at least one span of it, of any
  // status.
  out.set_only_in_a(b.count == 0);
  out.set_only_in_b(a.count == 0);
  if (a.count != 0 && b.count != 0) {
    out.set_total_ratio(Ratio(static_cast<double>(b.total_ns), static_cast<double>(a.total_ns)));
    out.set_mean_ratio(Ratio(out.mean_b_ns(), out.mean_a_ns()));
  }
  // Both totals are capped at kMaxAggregateNs = INT64_MAX: the difference fits.
  out.set_total_change_ns(static_cast<int64_t>(std::min(b.total_ns, kMaxAggregateNs)) -
                          static_cast<int64_t>(std::min(a.total_ns, kMaxAggregateNs)));
  return out;
}

bool ComesFirstByChange(int64_t change_x, const std::string& key_x, int64_t change_y,
                        const std::string& key_y) {
  const uint64_t dx = static_cast<uint64_t>(std::abs(change_x));
  const uint64_t dy = static_cast<uint64_t>(std::abs(change_y));
  if (dx != dy) return dx > dy;
  return key_x < key_y;
}

void SortComparisons(std::vector<v1::Comparison>* rows) {
  std::sort(rows->begin(), rows->end(), [](const v1::Comparison& x, const v1::Comparison& y) {
    return ComesFirstByChange(x.total_change_ns(), x.key(), y.total_change_ns(), y.key());
  });
}

void FinishCompareResponse(std::vector<v1::Comparison> rows, uint64_t total_a_ns,
                           uint64_t total_b_ns, v1::CompareSessionsResponse* response) {
  SortComparisons(&rows);
  response->Clear();
  response->mutable_rows()->Reserve(static_cast<int>(rows.size()));
  for (v1::Comparison& row : rows) *response->add_rows() = std::move(row);
  response->set_total_a_ns(total_a_ns);
  response->set_total_b_ns(total_b_ns);
}

}  // namespace optrace::daemon
