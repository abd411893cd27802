// The fleet's answers to GetStats, QueryOps and CompareSessions: the same
// requests and responses as for one session, computed by the ClickHouse
// that every node forwards its spans to (docs/fleet.md).
#ifndef OPTRACE_DAEMON_FLEET_FLEET_QUERIES_H_
#define OPTRACE_DAEMON_FLEET_FLEET_QUERIES_H_

#include <string>

#include "common/status.h"
#include "forward/clickhouse_client.h"
#include "forward/clickhouse_schema.h"
#include "optrace/v1/optrace.pb.h"
#include "query/span_queries.h"

namespace optrace::daemon {

// Where the fleet's spans are.
struct FleetSource {
  ClickHouseEndpoint endpoint;
  SpanTableNames tables;  // queries read tables.QueryTable()
};

// Validates fleet requests, asks ClickHouse, and shapes its answer like the
// local queries do (same definitions: counts of every status, durations
// and nearest-rank percentiles of OK spans, shares, ratios, orders).
// Each call makes its own HTTP connection.
// Thread rules: every method is safe to call from any thread at once.
// Errors: kInvalidArgument for a bad request, naming the field (the same
// rules and messages as locally for filters, limits and GroupBy); and
// kUnavailable when ClickHouse cannot be reached, refuses the query (e.g.
// the table does not exist yet) or answers something unexpected.
class FleetQueries {
 public:
  explicit FleetQueries(FleetSource source) : source_(std::move(source)) {}

  // REQUIRES: request.fleet(). Rows carry `nodes`, and `node` with
  // per_node. session_id must be 0.
  Status GetStats(const v1::GetStatsRequest& request, v1::GetStatsResponse* response) const;

  // REQUIRES: request.fleet(). Spans in (start, node, stored order) order,
  // with node and label; the cursor is a fleet cursor. session_id must be 0.
  Result<QueryPage> QueryOps(const v1::QueryOpsRequest& request) const;

  // REQUIRES: request.fleet(). Side A: fleet_a and filter; side B: fleet_b
  // and filter. session_a and session_b must be 0.
  Status CompareSessions(const v1::CompareSessionsRequest& request,
                         v1::CompareSessionsResponse* response) const;

  const FleetSource& source() const { return source_; }

 private:
  // The body of ClickHouse's answer to `sql`.
  Result<std::string> Run(const std::string& sql) const;

  const FleetSource source_;
};

// For requests without `fleet`: kInvalidArgument when a fleet-only field is
// set (fleet_filter, per_node; CompareSessions' fleet_a, fleet_b and
// filter), naming it. Thread rules: pure.
Status CheckNoFleetFields(const v1::GetStatsRequest& request);
Status CheckNoFleetFields(const v1::QueryOpsRequest& request);
Status CheckNoFleetFields(const v1::CompareSessionsRequest& request);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FLEET_FLEET_QUERIES_H_
