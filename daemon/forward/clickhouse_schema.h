// The ClickHouse tables of a fleet: their names, and the statements that
// create them (from deploy/clickhouse/, embedded at build time).
#ifndef OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_
#define OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_

#include <span>
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

// A column of the span table that tables created before it lack.
struct AddedSpanColumn {
  std::string_view name;
  std::string_view definition;  // its type and default, as in spans_table.sql
};

// The span table's columns added since its first release, oldest first.
std::span<const AddedSpanColumn> AddedSpanColumns();

// The tables that must hold every column: the insert table, then in a
// cluster the Distributed table over it.
std::vector<std::string> TablesToUpgrade(const SpanTableNames& names);

// A query whose answer is "1\n" when `table` ("db.table") has `column`,
// "0\n" when not. Thread rules: pure.
std::string HasColumnQuery(const std::string& table, std::string_view column);

// The statement that adds `column` to `table`. Thread rules: pure.
std::string AddColumnStatement(const std::string& table, const AddedSpanColumn& column);

// The settings the statements need (LowCardinality in ClickHouse 18.16).
ClickHouseClient::Settings SchemaSettings();

// `template_sql` with {database}, {table}, {local_table} and {cluster}
// replaced, split into statements at semicolons that end a line, comment
// lines removed, empty statements dropped. Exposed for tests.
std::vector<std::string> RenderStatements(std::string_view template_sql,
                                          const SpanTableNames& names);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_CLICKHOUSE_SCHEMA_H_
