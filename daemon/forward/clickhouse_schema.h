// The ClickHouse tables of a fleet: their names, and the statements that
// create them (from deploy/clickhouse/, embedded at build time).
#ifndef OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_
#define OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_

#include <string>
#include <string_view>
#include <vector>

#include "forward/clickhouse_client.h"

namespace optrace::daemon {

// Where a fleet's spans live. REQUIRES: each name is a plain identifier
// ([A-Za-z_][A-Za-z0-9_]*, as ValidateConfig checks); cluster "" means one
// server.
struct SpanTableNames {
  std::string database;
  std::string table;
  std::string cluster;

  // The table a forwarder inserts into: "db.table" on one server,
  // "db.table_local" (the server's shard) in a cluster.
  std::string InsertTable() const;
  // The table fleet queries read: "db.table" (in a cluster, the
  // Distributed table over every shard).
  std::string QueryTable() const;
};

// The statements that create what is missing, in order, each one request:
// the database and the span table; in a cluster, the table_local of this
// server and the Distributed table over the cluster. Each is "IF NOT
// EXISTS": running them again changes nothing. Thread rules: pure.
std::vector<std::string> SchemaStatements(const SpanTableNames& names);

// The settings the statements need (LowCardinality in ClickHouse 18.16).
ClickHouseClient::Settings SchemaSettings();

// `template_sql` with {database}, {table}, {local_table} and {cluster}
// replaced, split into statements at semicolons that end a line, comment
// lines removed, empty statements dropped. Exposed for tests.
std::vector<std::string> RenderStatements(std::string_view template_sql,
                                          const SpanTableNames& names);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_
