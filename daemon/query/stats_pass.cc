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

// The pass reserves room for at most this many durations up front (512
// MiB of address space, touched only as spans arrive).
constexpr uint64_t kMaxReservedDurations = uint64_t{1} << 26;

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
        return true;
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
                                     uint64_t two_threads_from_spans) {
  SharePass result;
  // Room for every OK span of each group (an upper bound under a filter):
  // no reallocation during the pass. Capped, since the counts are stored
  // data, not a promise.
  uint64_t reservable = kMaxReservedDurations;
  uint64_t session_spans = 0;
  for (const OpAggregateRow& row : aggregates) {
    const OpAggregateKey& k = row.key;
    const uint64_t room = std::min(row.totals.ok_count, reservable);
    result.groups.Reserve(StatsGroupKey(by, k.name, k.tag, k.target, k.device), room);
    reservable -= room;
    session_spans += row.totals.count;
  }
  if (session_spans < two_threads_from_spans) {
    Status passed = PassOverShare(reader, request, by, PageShare{0, 1}, &result);
    if (!passed.ok()) return passed;
    return StatsPassResult{result.groups.TakeRows(), result.spans};
  }
  SharePass other;
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
  Status mine = PassOverShare(reader, request, by, PageShare{0, 2}, &result);
  if (second.joinable()) {
    second.join();
  } else {
    other_status = PassOverShareWithOwnReader(reader.db_path(), request, by, other_share, &other);
  }
  if (!mine.ok()) return mine;
  if (!other_status.ok()) return other_status;
  result.groups.Merge(std::move(other.groups));
  return StatsPassResult{result.groups.TakeRows(2), result.spans + other.spans};
}

}  // namespace optrace::daemon
