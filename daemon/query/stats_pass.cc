#include "query/stats_pass.h"

#include <algorithm>
#include <memory>
#include <span>
#include <system_error>
#include <thread>
#include <utility>

#include "query/span_filter.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

// The span columns StatsGroupKey reads.
span_page::ColumnSet GroupKeyColumns(v1::GroupBy by) {
  switch (by) {
    case v1::GROUP_BY_TAG:
      return span_page::kTag;
    case v1::GROUP_BY_TARGET:
      return span_page::kTarget | span_page::kDevice;
    default:
      return span_page::kName;
  }
}

// What one thread's share of the pages holds.
struct SharePass {
  explicit SharePass(StatsGroups::Limits limits) : groups(limits) {}
  StatsGroups groups;
  uint64_t spans = 0;
};

// One thread's share of the pages, through `reader` (in the snapshot the
// caller holds), into `out`.
Status PassOverShare(SpanReader& reader, const v1::GetStatsRequest& request, v1::GroupBy by,
                     PageShare share, SharePass* out) {
  StringCache strings(reader);
  Result<SpanFilter> compiled = SpanFilter::Compile(request.filter(), "filter", strings);
  if (!compiled.ok()) return compiled.status();
  SpanFilter& filter = compiled.value();
  Status scanned = reader.ForEachSpanPage(
      request.session_id(), filter.min_start_ns(), filter.max_start_ns(),
      [&](std::span<const Span> page) {
        for (const Span& span : page) {
          if (!filter.Matches(span)) continue;
          ++out->spans;
          out->groups.Add(StatsGroupKey(by, span.name, span.tag, span.target, span.device), span);
        }
        return !out->groups.exhausted();
      },
      GroupKeyColumns(by) | StatsGroups::kColumns | filter.Columns(), share);
  if (!scanned.ok()) return scanned;
  return strings.status();
}

// The second thread's share: a reader of its own, in a snapshot of its own.
Status PassOverShareWithOwnReader(const std::string& db_path, const v1::GetStatsRequest& request,
                                  v1::GroupBy by, PageShare share, SharePass* out) {
  Result<std::unique_ptr<SpanReader>> reader = SpanReader::Open(db_path);
  if (!reader.ok()) return reader.status();
  Result<SqliteTransaction> snapshot = reader.value()->Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  return PassOverShare(*reader.value(), request, by, share, out);
}

}  // namespace

uint64_t StatsGroupKey(v1::GroupBy by, StringId name, StringId tag, uint8_t target,
                       uint16_t device) {
  switch (by) {
    case v1::GROUP_BY_TAG:
      return tag;
    case v1::GROUP_BY_TARGET:
      return (static_cast<uint64_t>(target) << 16) | device;
    default:
      return name;
  }
}

Result<StatsPassResult> RunStatsPass(SpanReader& reader, const v1::GetStatsRequest& request,
                                     v1::GroupBy by, const std::vector<OpAggregateRow>& aggregates,
                                     const StatsPassOptions& options) {
  uint64_t session_spans = 0;
  for (const OpAggregateRow& row : aggregates) session_spans += row.totals.count;
  const bool two_threads = session_spans >= options.two_threads_from_spans &&
                           options.second_thread && options.second_thread();
  // Each of two shares keeps half the exact durations; their merge keeps
  // them all.
  StatsGroups::Limits share_limits = options.limits;
  if (two_threads) share_limits.max_exact_durations /= 2;
  SharePass mine(share_limits);
  // Room for every OK span of each group (an upper bound under a filter):
  // no reallocation during the pass. StatsGroups caps it, since the
  // counts are stored data, not a promise.
  for (const OpAggregateRow& row : aggregates) {
    const OpAggregateKey& k = row.key;
    mine.groups.Reserve(StatsGroupKey(by, k.name, k.tag, k.target, k.device), row.totals.ok_count);
  }
  const auto finish = [](SharePass& pass, size_t threads) {
    const bool exhausted = pass.groups.exhausted();
    const bool sketched = pass.groups.sketched();
    return StatsPassResult{pass.groups.TakeRows(threads), pass.spans, exhausted, sketched};
  };
  if (!two_threads) {
    Status passed = PassOverShare(reader, request, by, PageShare{0, 1}, &mine);
    if (!passed.ok()) return passed;
    return finish(mine, 1);
  }
  SharePass other(share_limits);
  Status other_status;
  const PageShare other_share{1, 2};
  std::thread second;
  try {
    second = std::thread([&] {
      other_status = PassOverShareWithOwnReader(reader.db_path(), request, by, other_share, &other);
    });
  } catch (const std::system_error&) {
    // No thread to be had: the same share, after this thread's own.
  }
  Status mine_status = PassOverShare(reader, request, by, PageShare{0, 2}, &mine);
  if (second.joinable()) {
    second.join();
  } else {
    other_status = PassOverShareWithOwnReader(reader.db_path(), request, by, other_share, &other);
  }
  if (!mine_status.ok()) return mine_status;
  if (!other_status.ok()) return other_status;
  SharePass both(options.limits);
  both.groups.Merge(std::move(mine.groups));
  both.groups.Merge(std::move(other.groups));
  both.spans = mine.spans + other.spans;
  return finish(both, 2);
}

}  // namespace optrace::daemon
