#include "query/stats_rows.h"

#include <algorithm>
#include <utility>

#include "query/duration_math.h"

namespace optrace::daemon {

void FinishStatsResponse(std::vector<v1::OpStats> rows, uint32_t top, v1::StatsSort sort,
                         uint64_t spans, v1::GetStatsResponse* response) {
  uint64_t total = 0;
  uint64_t self = 0;
  for (const v1::OpStats& row : rows) {
    total = AddCapped(total, row.total_ns());
    self = AddCapped(self, row.self_ns());
  }
  for (v1::OpStats& row : rows) {
    row.set_mean_ns(Mean(row.total_ns(), row.ok_count()));
    row.set_share(Ratio(static_cast<double>(row.total_ns()), static_cast<double>(total)));
    row.set_self_share(Ratio(static_cast<double>(row.self_ns()), static_cast<double>(self)));
  }
  const bool by_self = sort == v1::STATS_SORT_SELF;
  std::sort(rows.begin(), rows.end(), [by_self](const v1::OpStats& a, const v1::OpStats& b) {
    const uint64_t a_first = by_self ? a.self_ns() : a.total_ns();
    const uint64_t b_first = by_self ? b.self_ns() : b.total_ns();
    if (a_first != b_first) return a_first > b_first;
    if (a.total_ns() != b.total_ns()) return a.total_ns() > b.total_ns();
    if (a.key() != b.key()) return a.key() < b.key();
    return a.node() < b.node();
  });
  if (top != 0 && rows.size() > top) rows.resize(top);
  response->Clear();
  response->mutable_rows()->Reserve(static_cast<int>(rows.size()));
  for (v1::OpStats& row : rows) *response->add_rows() = std::move(row);
  response->set_total_ns(total);
  response->set_self_ns(self);
  response->set_spans(spans);
}

}  // namespace optrace::daemon
