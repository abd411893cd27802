#include "export_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(DescribeExportTest, Chrome_PointsAtPerfetto) {
  EXPECT_EQ(DescribeExport(7, v1::EXPORT_FORMAT_CHROME_JSON, 1234, 1'258'291, "/tmp/out.json"),
            "wrote session 7 as Chrome trace JSON (1234 spans, 1.20 MiB) to /tmp/out.json; open it "
            "in https://ui.perfetto.dev or chrome://tracing");
}

TEST(DescribeExportTest, Perfetto_PointsAtTheUiAndTraceProcessor) {
  EXPECT_EQ(DescribeExport(7, v1::EXPORT_FORMAT_PERFETTO, 1234, 262'144, "/tmp/out.pftrace"),
            "wrote session 7 as Perfetto trace (1234 spans, 256 KiB) to /tmp/out.pftrace; open it "
            "in https://ui.perfetto.dev or with trace_processor /tmp/out.pftrace");
}

TEST(DescribeExportTest, Sqlite_PointsAtSqlite3) {
  EXPECT_EQ(DescribeExport(7, v1::EXPORT_FORMAT_SQLITE, 2, 8192, "/tmp/x.db"),
            "wrote session 7 as SQLite database (2 spans, 8.00 KiB) to /tmp/x.db; open it with "
            "sqlite3 /tmp/x.db");
}

TEST(DescribeExportTest, Csv_NoHint) {
  EXPECT_EQ(DescribeExport(7, v1::EXPORT_FORMAT_CSV, 2, 100, "/tmp/x.csv"),
            "wrote session 7 as CSV (2 spans, 100 B) to /tmp/x.csv");
}

}  // namespace
}  // namespace optrace::cli
