#include "fleet/fleet_queries.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fleet/fleet_cursor.h"
#include "fleet/fleet_sql.h"
#include "forward/row_binary.h"
#include "model/span.h"
#include "optrace/v1/target_numbers.h"
#include "query/comparison_rows.h"
#include "query/duration_math.h"
#include "query/stats_rows.h"
#include "wire/op_filter_check.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

bool IsSet(const v1::FleetFilter& fleet) { return !fleet.node().empty() || !fleet.label().empty(); }

Status NeedsFleet(const std::string& field) {
  return Status::InvalidArgument(field + " is only for fleet queries: set fleet too");
}

Status NoSessionWithFleet(const std::string& field) {
  return Status::InvalidArgument(field +
                                 " must be 0 with fleet (session ids are per node): select "
                                 "spans with fleet_filter's node and label instead");
}

// The WHERE condition of a request's OpFilter and FleetFilter.
Result<std::string> WhereOf(const v1::OpFilter& filter, const v1::FleetFilter& fleet) {
  Result<CheckedOpFilter> checked = CheckOpFilter(filter, "filter");
  if (!checked.ok()) return checked.status();
  return "(" + OpFilterCondition(checked.value()) + ") AND (" + FleetFilterCondition(fleet) + ")";
}

// Reads one span's row fields (FleetSpansSql's order) and hands them to
// `use` with the texts they name; the span's session is the caller's. The
// fleet table keeps device durations in the older convention (0 = not
// measured) and stores target and status as the proto's numbers, which are
// checked: another table could hold anything. Errors are the reader's or
// kInvalidArgument naming the values.
template <typename Use>
Status ReadSpanFields(RowBinaryReader& reader, Use&& use) {
  Span span;
  std::vector<std::string> texts = {""};
  int8_t target_untrusted = 0;
  int8_t status_untrusted = 0;
  ForEachSpanField([&](const char*, auto kind, auto member) {
    using Field = std::remove_reference_t<decltype(span.*member)>;
    constexpr SpanFieldKind how = decltype(kind)::value;
    if constexpr (how == SpanFieldKind::kDictText) {
      texts.push_back(reader.String());
      span.*member = static_cast<StringId>(texts.size() - 1);
    } else if constexpr (how == SpanFieldKind::kTarget) {
      target_untrusted = reader.Int<int8_t>();
    } else if constexpr (std::is_same_v<Field, SpanStatus>) {
      status_untrusted = reader.Int<int8_t>();
    } else if constexpr (how == SpanFieldKind::kSelfDuration) {
      // The row holds the self time; the span, its children's time. The
      // duration comes earlier in the row.
      const uint64_t self_ns = reader.Int<uint64_t>();
      span.children_ns = span.duration_ns - std::min(self_ns, span.duration_ns);
    } else {
      span.*member = reader.Int<Field>();
    }
  });
  if (!reader.status().ok()) return reader.status();
  const std::optional<abi::TargetKind> target = v1::KindFromTarget(target_untrusted);
  const std::optional<SpanStatus> status =
      StatusFromProto(static_cast<v1::SpanStatus>(status_untrusted));
  if (!target || !status) {
    return Status::InvalidArgument("a span with target " + std::to_string(target_untrusted) +
                                   " and status " + std::to_string(status_untrusted) +
                                   ", not both known values (is the table optrace's?)");
  }
  span.target = static_cast<uint8_t>(*target);
  span.status = *status;
  span.has_device_ns = span.device_ns != 0;
  use(span, [&](StringId id) -> const std::string& { return texts[id]; });
  return Status::Ok();
}

// kUnavailable naming what ClickHouse sent that did not parse.
Status BadAnswer(const std::string& url, const Status& parse) {
  return Status::Unavailable("ClickHouse at " + url + ": unexpected answer: " + parse.message());
}

}  // namespace

Status CheckNoFleetFields(const v1::GetStatsRequest& request) {
  if (request.has_fleet_filter() && IsSet(request.fleet_filter())) {
    return NeedsFleet("fleet_filter");
  }
  if (request.per_node()) return NeedsFleet("per_node");
  return Status::Ok();
}

Status CheckNoFleetFields(const v1::QueryOpsRequest& request) {
  if (request.has_fleet_filter() && IsSet(request.fleet_filter())) {
    return NeedsFleet("fleet_filter");
  }
  return Status::Ok();
}

Status CheckNoFleetFields(const v1::CompareSessionsRequest& request) {
  if (IsSet(request.fleet_a())) return NeedsFleet("fleet_a");
  if (IsSet(request.fleet_b())) return NeedsFleet("fleet_b");
  if (request.has_filter()) return NeedsFleet("filter");
  return Status::Ok();
}

Result<std::string> FleetQueries::Run(const std::string& sql) const {
  Result<std::unique_ptr<ClickHouseClient>> client = ClickHouseClient::Create(source_.endpoint);
  if (!client.ok()) return client.status();
  return client.value()->Query(sql);
}

Status FleetQueries::GetStats(const v1::GetStatsRequest& request,
                              v1::GetStatsResponse* response) const {
  if (request.session_id() != 0) return NoSessionWithFleet("session_id");
  if (request.threads()) {
    return Status::InvalidArgument(
        "threads is for one session only: a busy share is per thread of one process");
  }
  Result<v1::GroupBy> by = ValidGroupBy(request.by());
  if (!by.ok()) return by.status();
  if (Status sort = CheckStatsSort(request.sort()); !sort.ok()) return sort;
  Result<std::string> where = WhereOf(request.filter(), request.fleet_filter());
  if (!where.ok()) return where.status();
  Result<std::string> answer = Run(
      FleetStatsSql(source_.tables.QueryTable(), where.value(), by.value(), request.per_node()));
  if (!answer.ok()) return answer.status();

  std::vector<v1::OpStats> rows;
  uint64_t spans = 0;
  RowBinaryReader reader(answer.value());
  while (!reader.AtEnd()) {
    v1::OpStats row;
    row.set_key(reader.String());
    if (request.per_node()) row.set_node(reader.String());
    row.set_count(reader.Int<uint64_t>());
    row.set_ok_count(reader.Int<uint64_t>());
    row.set_total_ns(std::min(reader.Int<uint64_t>(), kMaxAggregateNs));
    row.set_self_ns(std::min(reader.Int<uint64_t>(), kMaxAggregateNs));
    row.set_min_ns(reader.Int<uint64_t>());
    row.set_max_ns(reader.Int<uint64_t>());
    row.set_p50_ns(reader.Int<uint64_t>());
    row.set_p95_ns(reader.Int<uint64_t>());
    row.set_p99_ns(reader.Int<uint64_t>());
    row.set_nodes(static_cast<uint32_t>(reader.Int<uint64_t>()));
    if (!reader.status().ok()) return BadAnswer(RedactedUrl(source_.endpoint.url), reader.status());
    spans += row.count();
    rows.push_back(std::move(row));
  }
  FinishStatsResponse(std::move(rows), request.top(), request.sort(), spans, response);
  return Status::Ok();
}

Result<QueryPage> FleetQueries::QueryOps(const v1::QueryOpsRequest& request) const {
  if (request.session_id() != 0) return NoSessionWithFleet("session_id");
  const uint32_t limit = request.limit() == 0 ? kDefaultQueryLimit : request.limit();
  if (limit > kMaxQueryLimit) {
    return Status::InvalidArgument("limit " + std::to_string(limit) + " is above the maximum, " +
                                   std::to_string(kMaxQueryLimit) +
                                   ": ask for fewer spans and page with the cursor");
  }
  std::optional<FleetCursor> after;
  if (!request.cursor().empty()) {
    Result<FleetCursor> decoded = DecodeFleetCursor(request.cursor());
    if (!decoded.ok()) return decoded.status();
    after = std::move(decoded).value();
  }
  Result<std::string> where = WhereOf(request.filter(), request.fleet_filter());
  if (!where.ok()) return where.status();
  // One more than the page: whether it exists says whether there is a next page.
  Result<std::string> answer =
      Run(FleetSpansSql(source_.tables.QueryTable(), where.value(), after, uint64_t{limit} + 1));
  if (!answer.ok()) return answer.status();

  QueryPage page;
  FleetCursor last;
  RowBinaryReader reader(answer.value());
  while (!reader.AtEnd()) {
    if (page.spans.size() == limit) {
      page.next_cursor = EncodeFleetCursor(last);
      break;
    }
    v1::Span span;
    span.set_node(reader.String());
    const auto session_id = reader.Int<uint64_t>();
    span.set_label(reader.String());
    Status read = ReadSpanFields(reader, [&](const Span& fields, const StringLookup& texts) {
      ToProto(fields, session_id, texts, &span);
    });
    last = {span.start_unix_ns(), span.node(), reader.Int<uint64_t>(), reader.Int<uint64_t>(),
            reader.Int<uint32_t>()};
    if (read.ok()) read = reader.status();
    if (!read.ok()) return BadAnswer(RedactedUrl(source_.endpoint.url), read);
    page.spans.push_back(std::move(span));
  }
  return page;
}

Status FleetQueries::CompareSessions(const v1::CompareSessionsRequest& request,
                                     v1::CompareSessionsResponse* response) const {
  if (request.session_a() != 0) return NoSessionWithFleet("session_a");
  if (request.session_b() != 0) return NoSessionWithFleet("session_b");
  Result<v1::GroupBy> by = ValidCompareBy(request.by());
  if (!by.ok()) return by.status();
  Result<CheckedOpFilter> filter = CheckOpFilter(request.filter(), "filter");
  if (!filter.ok()) return filter.status();
  Result<std::string> answer =
      Run(FleetCompareSql(source_.tables.QueryTable(), OpFilterCondition(filter.value()),
                          FleetFilterCondition(request.fleet_a()),
                          FleetFilterCondition(request.fleet_b()), by.value()));
  if (!answer.ok()) return answer.status();

  std::vector<v1::Comparison> rows;
  uint64_t totals[2] = {0, 0};
  RowBinaryReader reader(answer.value());
  while (!reader.AtEnd()) {
    std::string key = reader.String();
    ComparisonSide sides[2];
    for (ComparisonSide& side : sides) {
      side.count = reader.Int<uint64_t>();
      side.ok_count = reader.Int<uint64_t>();
      side.total_ns = std::min(reader.Int<uint64_t>(), kMaxAggregateNs);
    }
    if (!reader.status().ok()) return BadAnswer(RedactedUrl(source_.endpoint.url), reader.status());
    for (int s = 0; s < 2; ++s) totals[s] = AddCapped(totals[s], sides[s].total_ns);
    rows.push_back(MakeComparison(std::move(key), sides[0], sides[1]));
  }
  FinishCompareResponse(std::move(rows), totals[0], totals[1], response);
  return Status::Ok();
}

}  // namespace optrace::daemon
