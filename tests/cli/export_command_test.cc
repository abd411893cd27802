#include "export_command.h"

#include <gtest/gtest.h>

#include <limits>

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

TEST(ExportRangeOfTest, OffsetsFromTheSessionStart_OpenEndsAndNoRange) {
  constexpr int64_t kStart = 1'780'000'000'000'000'000;
  ExportOptions options;
  EXPECT_EQ(ExportRangeOf(options, kStart), (std::pair<int64_t, int64_t>{0, 0}));
  options.from_ns = 2'000;
  options.from_given = true;
  EXPECT_EQ(ExportRangeOf(options, kStart),
            (std::pair<int64_t, int64_t>{kStart + 2'000, std::numeric_limits<int64_t>::max()}));
  options.to_ns = 5'000;
  options.to_given = true;
  EXPECT_EQ(ExportRangeOf(options, kStart),
            (std::pair<int64_t, int64_t>{kStart + 2'000, kStart + 5'000}));
  options.from_given = false;
  EXPECT_EQ(ExportRangeOf(options, kStart), (std::pair<int64_t, int64_t>{kStart, kStart + 5'000}));
  // Offsets past the end of time saturate; a session at the epoch starts at 1 ns.
  options.to_ns = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(ExportRangeOf(options, kStart).second, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ExportRangeOf(options, 0).first, 1);
}

TEST(CheckExportRangeTest, ToNotAfterFrom_UsageError) {
  ExportOptions options;
  options.from_ns = 2'000'000;
  options.to_ns = 1'000'000;
  options.from_given = options.to_given = true;
  const std::optional<CliError> error = CheckExportRange(options);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->exit_code, 2);
  EXPECT_EQ(error->message, "--to 1.00 ms is not after --from 2.00 ms");
  options.to_ns = 2'000'001;
  EXPECT_FALSE(CheckExportRange(options).has_value());
  options.from_given = false;
  EXPECT_FALSE(CheckExportRange(options).has_value()) << "only --to: from the session's start";
  options.to_ns = 0;
  ASSERT_TRUE(CheckExportRange(options).has_value());
  EXPECT_EQ(CheckExportRange(options)->message, "--to 0 ns is not after the session's start");
}

}  // namespace
}  // namespace optrace::cli
