#include "query/span_queries.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/op_line.h"
#include "model/duration_sketch.h"
#include "model/flat_id_map.h"
#include "query/aggregate_stats.h"
#include "query/comparison_rows.h"
#include "query/duration_math.h"
#include "query/fusion_map.h"
#include "query/page_scan.h"
#include "query/query_cursor.h"
#include "query/smallest_spans.h"
#include "query/span_filter.h"
#include "query/stats_groups.h"
#include "query/stats_pass.h"
#include "query/stats_rows.h"
#include "query/thread_busy.h"
#include "storage/op_aggregate.h"
#include "wire/proto_convert.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

// The text of a group key: "(other)" for the groups folded in
// op_aggregates, "gpu:0" for targets, the dictionary string otherwise.
std::string KeyText(v1::GroupBy by, uint64_t key, StringCache& strings) {
  if (key == OtherStatsKey(by)) return "(other)";
  if (by == v1::GROUP_BY_TARGET) {
    return std::string(TargetKindName(static_cast<abi::TargetKind>(key >> 16))) + ":" +
           std::to_string(key & 0xffff);
  }
  return strings.Get(static_cast<StringId>(key));
}

// The QueryOps cursor after `page` (not empty), given the request's.
QueryCursor CursorAfter(const std::vector<Span>& page, const std::optional<QueryCursor>& previous) {
  const Span& last = page.back();
  QueryCursor next{last.start_ns, last.op_id, 0};
  for (auto it = page.rbegin(); it != page.rend() && SameSpanKey(*it, last); ++it) {
    ++next.sent_at_key;
  }
  if (previous && previous->start_ns == next.start_ns && previous->op_id == next.op_id) {
    next.sent_at_key += previous->sent_at_key;
  }
  return next;
}

// Both sessions' op_aggregates rows: [0] is A, [1] is B.
using SessionAggregates = std::vector<OpAggregateRow>[2];

// The comparison rows of `aggregates` per name (or tag), unsorted, leaving
// out the rows whose tag `skip_tag` is true for (none when it is empty);
// adds the rows kept to `totals`. A key is in a session when the session
// has an aggregate row for it, that is at least one span of any status.
std::vector<v1::Comparison> CompareAggregates(const SessionAggregates& aggregates, bool by_name,
                                              const std::function<bool(StringId)>& skip_tag,
                                              StringCache& strings, uint64_t totals[2]) {
  struct Pair {
    StringId key = 0;
    ComparisonSide side[2];
  };
  std::vector<Pair> pairs;
  FlatIdMap<uint32_t> index;  // key -> index in pairs
  for (int s = 0; s < 2; ++s) {
    for (const OpAggregateRow& row : aggregates[s]) {
      if (skip_tag && skip_tag(row.key.tag)) continue;
      const StringId key = by_name ? row.key.name : row.key.tag;
      const uint32_t* found = index.Find(key);
      const uint32_t at = found != nullptr ? *found : index.Insert(key, pairs.size());
      if (at == pairs.size()) pairs.push_back({key, {}});
      pairs[at].side[s].Add(row.totals.count, row.totals.ok_count, row.totals.total_ns);
      totals[s] = AddCapped(totals[s], row.totals.total_ns);
    }
  }
  std::vector<v1::Comparison> rows;
  rows.reserve(pairs.size());
  for (const Pair& pair : pairs) {
    rows.push_back(MakeComparison(strings.Get(pair.key), pair.side[0], pair.side[1]));
  }
  return rows;
}

// Both sessions' totals per tag, with each side's most common op name of
// the tag (ties by smaller name id), for MapFusions; `index` maps each tag
// id to its entry. Linear in the rows: one hash lookup of the tag and one
// of the (tag, name) pair each.
std::vector<TagSides> TagSidesOf(const SessionAggregates& aggregates, StringCache& strings,
                                 FlatIdMap<uint32_t>* index) {
  struct MostCommon {
    StringId name = 0;
    uint64_t count = 0;
    bool seen = false;
  };
  std::vector<TagSides> tags;
  std::vector<std::array<MostCommon, 2>> most;  // per tag and side
  for (int s = 0; s < 2; ++s) {
    // Spans per (tag entry, name) of this side, then each tag's most common.
    std::unordered_map<uint64_t, uint64_t> counts;
    for (const OpAggregateRow& row : aggregates[s]) {
      const uint32_t* found = index->Find(row.key.tag);
      const uint32_t at = found != nullptr ? *found : index->Insert(row.key.tag, tags.size());
      if (at == tags.size()) {
        tags.push_back({strings.Get(row.key.tag), {}, {}});
        most.emplace_back();
      }
      tags[at].side[s].Add(row.totals.count, row.totals.ok_count, row.totals.total_ns);
      counts[(uint64_t{at} << 32) | row.key.name] += row.totals.count;
    }
    for (const auto& [pair, count] : counts) {
      MostCommon& best = most[pair >> 32][s];
      const auto name = static_cast<StringId>(pair & 0xffffffff);
      if (!best.seen || count > best.count || (count == best.count && name < best.name)) {
        best = {name, count, true};
      }
    }
  }
  for (size_t i = 0; i < tags.size(); ++i) {
    for (int s = 0; s < 2; ++s) {
      if (most[i][s].seen) tags[i].name[s] = strings.Get(most[i][s].name);
    }
  }
  return tags;
}

// The error of a request whose session holds more than `max_groups`
// groups: names the bound, its config key and what to do instead.
Status TooManyGroups(const std::string& what, size_t max_groups, const std::string& instead) {
  return Status::ResourceExhausted(what + ": more than " + std::to_string(max_groups) +
                                   " groups, the cap max_query_groups is " +
                                   std::to_string(max_groups) + " (optraced.toml); " + instead);
}

}  // namespace

Result<v1::GroupBy> ValidGroupBy(v1::GroupBy by) {
  switch (by) {
    case v1::GROUP_BY_UNSPECIFIED:
      return v1::GROUP_BY_NAME;
    case v1::GROUP_BY_NAME:
    case v1::GROUP_BY_TAG:
    case v1::GROUP_BY_TARGET:
      return by;
    default:
      return Status::InvalidArgument("by " + std::to_string(by) +
                                     " is not a known GroupBy (NAME, TAG or TARGET)");
  }
}

Status CheckStatsSort(v1::StatsSort sort) {
  if (sort == v1::STATS_SORT_UNSPECIFIED || sort == v1::STATS_SORT_TOTAL ||
      sort == v1::STATS_SORT_SELF) {
    return Status::Ok();
  }
  return Status::InvalidArgument("sort " + std::to_string(sort) +
                                 " is not a known StatsSort (TOTAL or SELF)");
}

Result<v1::GroupBy> ValidCompareBy(v1::GroupBy by) {
  Result<v1::GroupBy> valid = ValidGroupBy(by);
  if (!valid.ok()) return valid.status();
  if (valid.value() == v1::GROUP_BY_TARGET) {
    return Status::InvalidArgument(
        "by GROUP_BY_TARGET is not supported by CompareSessions: compare by NAME or TAG");
  }
  return valid;
}

Result<QueryPage> QueryOps(SpanReader& reader, const v1::QueryOpsRequest& request) {
  const uint32_t limit = request.limit() == 0 ? kDefaultQueryLimit : request.limit();
  if (limit > kMaxQueryLimit) {
    return Status::InvalidArgument("limit " + std::to_string(limit) + " is above the maximum, " +
                                   std::to_string(kMaxQueryLimit) +
                                   ": ask for fewer spans and page with the cursor");
  }
  StringCache strings(reader);
  Result<SpanFilter> filter = SpanFilter::Compile(request.filter(), "filter", strings);
  if (!filter.ok()) return filter.status();
  std::optional<QueryCursor> cursor;
  if (!request.cursor().empty()) {
    Result<QueryCursor> decoded = DecodeCursor(request.cursor());
    if (!decoded.ok()) return decoded.status();
    cursor = decoded.value();
  }

  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  // One more than the page: whether it exists says whether there is a next page.
  Result<std::vector<Span>> spans =
      ScanPage(reader, request.session_id(), filter.value(), cursor, size_t{limit} + 1);
  if (!spans.ok()) return spans.status();
  if (!strings.status().ok()) return strings.status();

  QueryPage page;
  const bool more = spans->size() > limit;
  if (more) {
    spans->resize(limit);
    page.next_cursor = EncodeCursor(CursorAfter(spans.value(), cursor));
  }
  page.spans.resize(spans->size());
  const StringLookup lookup = strings.AsLookup();
  for (size_t i = 0; i < spans->size(); ++i) {
    ToProto(spans.value()[i], request.session_id(), lookup, &page.spans[i]);
  }
  if (!strings.status().ok()) return strings.status();
  return page;
}

Status GetStats(SpanReader& reader, const v1::GetStatsRequest& request, const QueryLimits& limits,
                v1::GetStatsResponse* response) {
  Result<v1::GroupBy> by = ValidGroupBy(request.by());
  if (!by.ok()) return by.status();
  if (Status sort = CheckStatsSort(request.sort()); !sort.ok()) return sort;
  StringCache strings(reader);
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  const v1::GroupBy group_by = by.value();
  const std::string what = "GetStats of session " + std::to_string(request.session_id()) + " by " +
                           (group_by == v1::GROUP_BY_TAG      ? "tag"
                            : group_by == v1::GROUP_BY_TARGET ? "target"
                                                              : "name");
  const std::string instead = "group it another way, or filter by name or tag";
  // A group is at least one row: more rows than groups allowed is refused
  // before any is read.
  Result<std::vector<OpAggregateRow>> aggregates =
      reader.Aggregates(request.session_id(), limits.max_groups);
  if (aggregates.status().code() == Status::Code::kResourceExhausted) {
    return TooManyGroups(what + " (its stored aggregates)", limits.max_groups,
                         "the database holds more than optraced writes for one session");
  }
  if (!aggregates.ok()) return aggregates.status();
  std::optional<AggregateStats> from_aggregates;
  if (AggregatesCanAnswer(request, aggregates.value())) {
    Result<SpanFilter> filter = SpanFilter::Compile(request.filter(), "filter", strings);
    if (!filter.ok()) return filter.status();
    from_aggregates = StatsFromAggregates(aggregates.value(), filter.value(), group_by);
  }
  std::vector<StatsGroups::Row> rows;
  uint64_t spans = 0;
  bool sketched = false;
  if (from_aggregates) {
    rows = std::move(from_aggregates->rows);
    spans = from_aggregates->spans;
  } else {
    const StatsPassOptions options{.limits = {.max_groups = limits.max_groups,
                                              .max_exact_durations = limits.max_exact_durations},
                                   .second_thread = limits.second_thread};
    Result<StatsPassResult> pass =
        RunStatsPass(reader, request, group_by, aggregates.value(), options);
    if (!pass.ok()) return pass.status();
    if (pass.value().exhausted) return TooManyGroups(what, limits.max_groups, instead);
    rows = std::move(pass.value().rows);
    spans = pass.value().spans;
    sketched = pass.value().sketched;
  }
  std::vector<v1::OpStats> stats(rows.size());
  uint64_t ok_spans = 0;  // of every group, before `top`
  for (size_t i = 0; i < rows.size(); ++i) {
    const StatsGroups::Row& row = rows[i];
    ok_spans += row.totals.ok_count;
    v1::OpStats& out = stats[i];
    out.set_key(KeyText(group_by, row.key, strings));
    out.set_count(row.totals.count);
    out.set_ok_count(row.totals.ok_count);
    out.set_total_ns(row.totals.total_ns);
    out.set_self_ns(row.totals.self_ns);
    out.set_min_ns(row.totals.min_ns);
    out.set_p50_ns(row.percentiles.p50);
    out.set_p95_ns(row.percentiles.p95);
    out.set_p99_ns(row.percentiles.p99);
    out.set_max_ns(row.totals.max_ns);
  }
  if (!strings.status().ok()) return strings.status();
  FinishStatsResponse(std::move(stats), request.top(), request.sort(), spans, response);
  if (from_aggregates) {
    response->set_source(v1::STATS_SOURCE_AGGREGATES);
    response->set_percentile_relative_error(DurationSketch::kRelativeError);
    response->set_percentile_spans(from_aggregates->percentile_spans);
    response->set_groups_folded(from_aggregates->groups_folded);
  } else {
    response->set_source(v1::STATS_SOURCE_SPANS);
    response->set_percentiles_exact(!sketched);
    if (sketched) {
      // More OK spans than exact percentiles may keep: every one of them
      // is in the sketches.
      response->set_percentile_relative_error(DurationSketch::kRelativeError);
      response->set_percentile_spans(ok_spans);
    }
  }
  if (request.threads()) {
    Result<SpanFilter> filter = SpanFilter::Compile(request.filter(), "filter", strings);
    if (!filter.ok()) return filter.status();
    Status busy = FillThreadBusy(reader, request.session_id(), filter.value(), response);
    if (!busy.ok()) return busy;
    if (!strings.status().ok()) return strings.status();
  }
  return Status::Ok();
}

Status CompareSessions(SpanReader& reader, const v1::CompareSessionsRequest& request,
                       const QueryLimits& limits, v1::CompareSessionsResponse* response) {
  Result<v1::GroupBy> by = ValidCompareBy(request.by());
  if (!by.ok()) return by.status();
  const bool by_name = by.value() == v1::GROUP_BY_NAME;

  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  SessionAggregates aggregates;
  const SessionId sessions[2] = {request.session_a(), request.session_b()};
  for (int s = 0; s < 2; ++s) {
    Result<std::vector<OpAggregateRow>> rows = reader.Aggregates(sessions[s], limits.max_groups);
    if (rows.status().code() == Status::Code::kResourceExhausted) {
      return TooManyGroups("CompareSessions: session " + std::to_string(sessions[s]),
                           limits.max_groups,
                           "the database holds more than optraced writes for one session");
    }
    if (!rows.ok()) return rows.status();
    aggregates[s] = std::move(rows.value());
  }

  StringCache strings(reader);
  uint64_t totals[2] = {0, 0};
  std::vector<v1::Comparison> rows =
      CompareAggregates(aggregates, by_name, nullptr, strings, totals);
  FlatIdMap<uint32_t> tag_index;  // tag -> index in tags
  const std::vector<TagSides> tags = TagSidesOf(aggregates, strings, &tag_index);
  if (!strings.status().ok()) return strings.status();
  FusionMap fusions = MapFusions(tags);
  FinishCompareResponse(std::move(rows), totals[0], totals[1], response);
  if (fusions.fusions.empty()) return Status::Ok();

  // A span is left out of the unfused rows when its tag is in a fusion.
  const auto involved = [&](StringId tag) {
    const uint32_t* at = tag_index.Find(tag);
    return at != nullptr && fusions.involved[*at];
  };
  uint64_t unfused_totals[2] = {0, 0};
  std::vector<v1::Comparison> unfused =
      CompareAggregates(aggregates, by_name, involved, strings, unfused_totals);
  if (!strings.status().ok()) return strings.status();
  SortComparisons(&unfused);
  response->mutable_unfused_rows()->Reserve(static_cast<int>(unfused.size()));
  for (v1::Comparison& row : unfused) *response->add_unfused_rows() = std::move(row);
  response->mutable_fusions()->Reserve(static_cast<int>(fusions.fusions.size()));
  for (v1::Fusion& fusion : fusions.fusions) *response->add_fusions() = std::move(fusion);
  response->set_fused_total_a_ns(fusions.fused_total_ns[0]);
  response->set_fused_total_b_ns(fusions.fused_total_ns[1]);
  return Status::Ok();
}

}  // namespace optrace::daemon
