#include "query/stats_rows.h"

#include <algorithm>
#include <utility>

#include "query/duration_math.h"

namespace optrace::daemon {

void FinishStatsResponse(std::vector<v1::OpStats> rows, uint32_t top, uint64_t spans,
                         v1::GetStatsResponse* response) {
  uint64_t total = 0;
  for (const v1::OpStats& row : rows) total = AddCapped(total, row.total_ns());
  for (v1::OpStats& row : rows) {
    row.set_mean_ns(Mean(row.total_ns(), row.ok_count()));
    row.set_share(Ratio(static_cast<double>(row.total_ns()), static_cast<double>(total)));
  }
  std::sort(rows.begin(), rows.end(), [](const v1::OpStats& a, const v1::OpStats& b) {
    if (a.total_ns() != b.total_ns()) return a.total_ns() > b.total_ns();
    if (a.key() != b.key()) return a.key() < b.key();
    return a.node() < b.node();
  });
  if (top != 0 && rows.size() > top) rows.resize(top);
  response->Clear();
  response->mutable_rows()->Reserve(static_cast<int>(rows.size()));
  for (v1::OpStats& row : rows) *response->add_rows() = std::move(row);
  response->set_total_ns(total);
  response->set_spans(spans);
}

}  // namespace optrace::daemon
