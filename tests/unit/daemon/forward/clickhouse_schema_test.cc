// The ClickHouse DDL: deploy/clickhouse/*.sql as optraced runs it, for one
// server and for a cluster, and its columns against what the forwarder
// sends.
#include "forward/clickhouse_schema.h"

#include <gtest/gtest.h>

#include <set>

#include "forward/span_rows.h"

namespace optrace::daemon {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ClickHouseSchemaTest, OneServer_DatabaseAndReplacingTable_NoDistributed) {
  const SpanTableNames names{"fleetdb", "ops", ""};
  EXPECT_EQ(names.InsertTable(), "fleetdb.ops");
  EXPECT_EQ(names.QueryTable(), "fleetdb.ops");
  const std::vector<std::string> statements = SchemaStatements(names);
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[0], "CREATE DATABASE IF NOT EXISTS fleetdb");
  EXPECT_TRUE(Contains(statements[1], "CREATE TABLE IF NOT EXISTS fleetdb.ops\n")) << statements[1];
  EXPECT_TRUE(Contains(statements[1], "ENGINE = ReplacingMergeTree()"));
  EXPECT_FALSE(Contains(statements[1], "{")) << "every placeholder filled";
  EXPECT_FALSE(Contains(statements[1], "--")) << "comment lines dropped";
}

TEST(ClickHouseSchemaTest, Cluster_LocalTablePlusDistributedOverCluster) {
  const SpanTableNames names{"optrace", "spans", "fleet"};
  EXPECT_EQ(names.InsertTable(), "optrace.spans_local");
  EXPECT_EQ(names.QueryTable(), "optrace.spans");
  const std::vector<std::string> statements = SchemaStatements(names);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_TRUE(Contains(statements[1], "CREATE TABLE IF NOT EXISTS optrace.spans_local\n"));
  EXPECT_EQ(statements[2],
            "CREATE TABLE IF NOT EXISTS optrace.spans AS optrace.spans_local\n"
            "ENGINE = Distributed(fleet, optrace, spans_local, cityHash64(node))");
}

TEST(ClickHouseSchemaTest, RenderStatements_CommentsBlankLinesAndSemicolons_Split) {
  const std::vector<std::string> statements = RenderStatements(
      "-- a comment\n\nSELECT {database};\n  -- indented comment\nSELECT 2\n  , 3;\nSELECT 4",
      {"db", "t", ""});
  EXPECT_EQ(statements, (std::vector<std::string>{"SELECT db", "SELECT 2\n  , 3", "SELECT 4"}));
}

// Every column the forwarder sends is in the table, and every column of the
// table is sent: the DDL and span_rows.cc cannot drift apart.
TEST(ClickHouseSchemaTest, SpanColumns_SameAsTableColumns) {
  const std::string table = SchemaStatements({"d", "t", ""})[1];
  std::set<std::string> in_table;
  const size_t open = table.find("(\n");
  const size_t close = table.find("\n)");
  ASSERT_NE(open, std::string::npos);
  size_t line = open + 2;
  while (line < close) {
    const size_t end = table.find('\n', line);
    const std::string text = table.substr(line, end - line);
    const size_t first = text.find_first_not_of(' ');
    in_table.insert(text.substr(first, text.find(' ', first) - first));
    line = end + 1;
  }
  std::set<std::string> sent;
  for (std::string_view column : SpanColumns()) sent.insert(std::string(column));
  EXPECT_EQ(sent, in_table);
  EXPECT_EQ(sent.size(), SpanColumns().size()) << "no column twice";
}

// A column added to older tables gets the definition a new table has, on
// the insert table and, in a cluster, the Distributed table too.
TEST(ClickHouseSchemaTest, AddedColumns_DefinedAsInTheTable_EveryTableUpgraded) {
  const std::string table = SchemaStatements({"d", "t", ""})[1];
  ASSERT_FALSE(AddedSpanColumns().empty());
  for (const AddedSpanColumn& column : AddedSpanColumns()) {
    const std::string line =
        "    " + std::string(column.name) + " " + std::string(column.definition);
    EXPECT_TRUE(Contains(table, line + "\n") || Contains(table, line + ",\n")) << line;
    EXPECT_EQ(AddColumnStatement("d.t", column), "ALTER TABLE d.t ADD COLUMN" + line.substr(3));
  }
  EXPECT_EQ(TablesToUpgrade({"d", "t", ""}), (std::vector<std::string>{"d.t"}));
  EXPECT_EQ(TablesToUpgrade({"d", "t", "c"}), (std::vector<std::string>{"d.t_local", "d.t"}));
  EXPECT_EQ(HasColumnQuery("d.t", "self_ns"),
            "SELECT count() FROM system.columns WHERE database = 'd' AND table = 't' AND name = "
            "'self_ns'");
}

}  // namespace
}  // namespace optrace::daemon
