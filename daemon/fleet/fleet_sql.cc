#include "fleet/fleet_sql.h"

#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "forward/sql_text.h"
#include "model/span.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

constexpr const char* kIsOk = "status = 'ok'";

std::string JoinAnd(const std::vector<std::string>& conditions) {
  if (conditions.empty()) return "1";
  std::string out;
  for (const std::string& condition : conditions) {
    if (!out.empty()) out += " AND ";
    out += "(" + condition + ")";
  }
  return out;
}

// The element of sorted array `d` (length `n`) at the nearest rank of
// `percent`: index ceil(percent * n / 100), 1-based, in integers.
std::string NearestRank(int percent) {
  return "if(ok_count = 0, toUInt64(0), d[intDiv(" + std::to_string(percent) +
         " * ok_count + 99, 100)])";
}

// The span's row fields, in ForEachSpanField's order, as FleetSpansSql
// reads them: dictionary texts as String, target and status as the numbers
// of their Enum8 (the proto's).
std::string SpanFieldColumns() {
  std::string columns;
  ForEachSpanField([&](const char* name, auto kind, auto member) {
    using Field = std::remove_reference_t<decltype(std::declval<Span&>().*member)>;
    constexpr SpanFieldKind how = decltype(kind)::value;
    if constexpr (how == SpanFieldKind::kDictText) {
      columns += "CAST(" + std::string(name) + " AS String), ";
    } else if constexpr (how == SpanFieldKind::kTarget || std::is_same_v<Field, SpanStatus>) {
      columns += "CAST(" + std::string(name) + " AS Int8), ";
    } else {
      columns += std::string(name) + ", ";
    }
  });
  return columns;
}

}  // namespace

std::string FleetFilterCondition(const v1::FleetFilter& fleet) {
  std::vector<std::string> conditions;
  if (!fleet.node().empty()) conditions.push_back("node = " + SqlString(fleet.node()));
  if (!fleet.label().empty()) conditions.push_back("label = " + SqlString(fleet.label()));
  return JoinAnd(conditions);
}

std::string OpFilterCondition(const CheckedOpFilter& filter) {
  std::vector<std::string> conditions;
  if (filter.name) conditions.push_back("match(name, " + SqlString(filter.name->pattern()) + ")");
  if (filter.tag) conditions.push_back("match(tag, " + SqlString(filter.tag->pattern()) + ")");
  if (filter.target) {
    conditions.push_back("CAST(target AS Int8) = " +
                         std::to_string(TargetToProto(static_cast<uint8_t>(*filter.target))));
  }
  if (filter.device) conditions.push_back("device = " + std::to_string(*filter.device));
  if (filter.status) {
    conditions.push_back("CAST(status AS Int8) = " + std::to_string(StatusToProto(*filter.status)));
  }
  if (filter.min_duration_ns > 0) {
    conditions.push_back("duration_ns >= " + SqlUInt(filter.min_duration_ns));
  }
  if (filter.min_start_ns != std::numeric_limits<int64_t>::min()) {
    conditions.push_back("start_unix_ns >= " + SqlInt(filter.min_start_ns));
  }
  if (filter.max_start_ns != std::numeric_limits<int64_t>::max()) {
    conditions.push_back("start_unix_ns <= " + SqlInt(filter.max_start_ns));
  }
  return JoinAnd(conditions);
}

std::string GroupKeyExpression(v1::GroupBy by) {
  switch (by) {
    case v1::GROUP_BY_TAG:
      return "CAST(tag AS String)";
    case v1::GROUP_BY_TARGET:
      return "concat(CAST(target AS String), ':', toString(device))";
    default:
      return "CAST(name AS String)";
  }
}

std::string FleetStatsSql(const std::string& table, const std::string& where, v1::GroupBy by,
                          bool per_node) {
  const std::string node = per_node ? "node, " : "";
  return "SELECT key, " + node + "count, ok_count, total_ns, self_total_ns, min_ns, max_ns, " +
         NearestRank(50) + ", " + NearestRank(95) + ", " + NearestRank(99) +
         ", nodes FROM (SELECT " + GroupKeyExpression(by) + " AS key, " +
         (per_node ? "CAST(node AS String) AS node, " : "") + "count() AS count, countIf(" + kIsOk +
         ") AS ok_count, sumIf(duration_ns, " + kIsOk + ") AS total_ns, sumIf(self_ns, " + kIsOk +
         ") AS self_total_ns, minIf(duration_ns, " + kIsOk + ") AS min_ns, maxIf(duration_ns, " +
         kIsOk + ") AS max_ns, arraySort(groupArrayIf(duration_ns, " + kIsOk +
         ")) AS d, uniqExact(node) AS nodes FROM " + table + " WHERE " + where + " GROUP BY key" +
         (per_node ? ", node" : "") + ") FORMAT RowBinary";
}

std::string FleetSpansSql(const std::string& table, const std::string& where,
                          const std::optional<FleetCursor>& after, uint64_t limit) {
  std::string condition = where;
  if (after) {
    condition += " AND (start_unix_ns, CAST(node AS String), store_id, page_id, page_index) > (" +
                 SqlInt(after->start_ns) + ", " + SqlString(after->node) + ", " +
                 SqlUInt(after->store_id) + ", " + SqlUInt(after->page_id) + ", toUInt32(" +
                 std::to_string(after->page_index) + "))";
  }
  return "SELECT CAST(node AS String), session_id, label, " + SpanFieldColumns() +
         "store_id, page_id, page_index FROM " + table + " WHERE " + condition +
         " ORDER BY start_unix_ns, node, store_id, page_id, page_index LIMIT " +
         std::to_string(limit) + " FORMAT RowBinary";
}

std::string FleetCompareSql(const std::string& table, const std::string& where,
                            const std::string& side_a, const std::string& side_b, v1::GroupBy by) {
  auto side = [](const std::string& in_side) {
    const std::string ok = "(" + in_side + ") AND " + kIsOk;
    return "countIf(" + in_side + "), countIf(" + ok + "), sumIf(duration_ns, " + ok + ")";
  };
  return "SELECT " + GroupKeyExpression(by) + " AS key, " + side(side_a) + ", " + side(side_b) +
         " FROM " + table + " WHERE (" + where + ") AND ((" + side_a + ") OR (" + side_b +
         ")) GROUP BY key FORMAT RowBinary";
}

}  // namespace optrace::daemon
