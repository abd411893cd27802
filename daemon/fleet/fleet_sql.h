// The SQL of fleet queries over the span table in ClickHouse
// (deploy/clickhouse/spans_table.sql): conditions from validated request
// fields, the group key of GetStats, and the three SELECTs.
#ifndef OPTRACE_DAEMON_FLEET_FLEET_SQL_H_
#define OPTRACE_DAEMON_FLEET_FLEET_SQL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "fleet/fleet_cursor.h"
#include "optrace/v1/optrace.pb.h"
#include "wire/op_filter_check.h"

namespace optrace::daemon {

// "node = '...' AND label = '...'", or "1" for an empty FleetFilter.
std::string FleetFilterCondition(const v1::FleetFilter& fleet);

// The conditions of `filter` joined with AND ("1" for none): patterns with
// ClickHouse's match() (RE2, matched anywhere, as locally), target,
// device, status, min duration and the time range.
std::string OpFilterCondition(const CheckedOpFilter& filter);

// The group key of GetStats as a String expression: the name, the tag, or
// "target:ordinal" ("gpu:0", as locally). REQUIRES: a valid GroupBy.
std::string GroupKeyExpression(v1::GroupBy by);

// GetStats: one row per group (and node when `per_node`) of the spans of
// `table` that pass `where`, in RowBinary: key String, [node String,]
// count, ok_count, total_ns, self_ns, min_ns, max_ns, p50, p95, p99 (nearest-rank
// over the OK durations, as locally: the value at index ceil(q * n) - 1 of
// the sorted durations), nodes, all UInt64.
std::string FleetStatsSql(const std::string& table, const std::string& where, v1::GroupBy by,
                          bool per_node);

// QueryOps: at most `limit` spans of `table` that pass `where`, after
// `after` when set, in (start, node, store_id, page_id, page_index) order,
// in RowBinary: node, session_id and label, the span's row fields in
// ForEachSpanField's order (texts as String, target and status as the
// Int8 of their Enum8), then store_id, page_id and page_index.
std::string FleetSpansSql(const std::string& table, const std::string& where,
                          const std::optional<FleetCursor>& after, uint64_t limit);

// CompareSessions: one row per name or tag of the spans that pass
// `where` and at least one side's condition, in RowBinary: key String,
// then count, ok_count, total_ns (UInt64) of side A, then of side B.
std::string FleetCompareSql(const std::string& table, const std::string& where,
                            const std::string& side_a, const std::string& side_b, v1::GroupBy by);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FLEET_FLEET_SQL_H_
