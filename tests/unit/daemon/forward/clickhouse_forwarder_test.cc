// The forwarder in-process against a real clickhouse-server (started on
// loopback ports in a temp folder, as tests/fleet/ starts its servers) and
// a real SpanStore: what it sends is counted in ClickHouse, its durable
// cursor is read back from the database. Outcomes are awaited by polling
// GetStatus, with deadlines far beyond what a loaded machine needs: nothing
// here measures time. Skipped, with the reason, where clickhouse-server is
// not installed.
#include "forward/clickhouse_forwarder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "api_test_store.h"
#include "clickhouse_server.h"
#include "daemon_process.h"
#include "forward/clickhouse_schema.h"
#include "forward/row_binary.h"
#include "store_test_data.h"
#include "temp_folder.h"

namespace optrace::daemon {
namespace {

using namespace std::chrono_literals;
using testing::WaitUntil;

constexpr std::chrono::milliseconds kDeadline = 60s;
constexpr const char* kNode = "forwarder-test";
constexpr size_t kNames = 50;  // SpanRun's names cycle through ids 1..50

// Rows of one node in ClickHouse: all of them, and distinct spans.
struct RowsThere {
  uint64_t rows = 0;
  uint64_t distinct_spans = 0;
};

class ClickHouseForwarderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const auto binary = testing::FindClickHouseServer(&why);
    if (!binary) GTEST_SKIP() << why;
    const std::string server_folder = folder_.path() + "/clickhouse";
    std::filesystem::create_directories(server_folder);
    server_ = std::make_unique<testing::ClickHouseServer>(*binary, server_folder,
                                                          testing::ClickHousePorts::Free(), "");
    ASSERT_TRUE(server_->Start(&why)) << why;
    for (size_t i = 1; i <= kNames; ++i) store_.Intern("op_" + std::to_string(i));
  }

  // Commits session `id` with `spans` spans (op ids from 1).
  void StoreSession(SessionId id, size_t spans) {
    store_.AddSession(testing::MakeSession(id),
                      testing::SpanRun(1, static_cast<int64_t>(id) * 1'000'000'000, spans));
    stored_spans_ += spans;
  }

  // Starts a forwarder of the store to the server, quick to flush and to
  // retry (so that a test waits less, not so that it measures anything).
  std::unique_ptr<ClickHouseForwarder> StartForwarder() {
    ForwarderOptions options;
    options.db_path = db_path_;
    options.endpoint.url = server_->url();
    options.tables = tables_;
    options.node = kNode;
    options.batch_spans = 1000;  // several batches, several in flight
    options.flush_interval = 20ms;
    options.min_retry_delay = 20ms;
    options.max_retry_delay = 500ms;
    auto forwarder = ClickHouseForwarder::Start(std::move(options));
    EXPECT_TRUE(forwarder.ok()) << forwarder.status().message();
    return forwarder.ok() ? std::move(forwarder).value() : nullptr;
  }

  // Waits until `forwarder` reports every stored span acknowledged.
  bool WaitForwardedAll(const ClickHouseForwarder& forwarder) {
    return WaitUntil(
        [&] {
          const ForwarderStatus status = forwarder.GetStatus();
          return status.spans_sent == stored_spans_ && status.backlog_spans == 0;
        },
        kDeadline);
  }

  // The server's answer to `sql` ("" after recording a test failure).
  std::string QueryThere(const std::string& sql, const ClickHouseClient::Settings& settings = {}) {
    ClickHouseEndpoint endpoint;
    endpoint.url = server_->url();
    auto client = ClickHouseClient::Create(endpoint);
    EXPECT_TRUE(client.ok()) << client.status().message();
    if (!client.ok()) return "";
    auto answer = client.value()->Query(sql, settings);
    EXPECT_TRUE(answer.ok()) << sql << ": " << answer.status().message();
    return answer.ok() ? answer.value() : "";
  }

  RowsThere CountRowsThere() {
    const std::string answer =
        QueryThere("SELECT count(), uniqExact(session_id, op_id) FROM " + tables_.InsertTable() +
                   " WHERE node = '" + kNode + "' FORMAT RowBinary");
    if (answer.empty()) return {};
    RowBinaryReader reader(answer);  // borrows the answer
    RowsThere there;
    there.rows = reader.Int<uint64_t>();
    there.distinct_spans = reader.Int<uint64_t>();
    EXPECT_TRUE(reader.status().ok() && reader.AtEnd()) << reader.status().message();
    return there;
  }

  // Expects every stored span in ClickHouse exactly once.
  void ExpectEverySpanThereOnce() {
    const RowsThere there = CountRowsThere();
    EXPECT_EQ(there.rows, stored_spans_) << "rows in ClickHouse vs spans stored";
    EXPECT_EQ(there.distinct_spans, stored_spans_) << "each span once";
  }

  testing::TempFolder folder_;
  std::unique_ptr<testing::ClickHouseServer> server_;
  testing::ApiTestStore store_;
  const std::string db_path_ = store_.folder() + "/trace.db";
  const SpanTableNames tables_{.database = "optrace", .table = "spans", .cluster = ""};
  uint64_t stored_spans_ = 0;
};

TEST_F(ClickHouseForwarderTest, Start_CommittedSpans_EveryOneCountedInClickHouse) {
  StoreSession(1, 2500);
  StoreSession(2, 1200);
  auto forwarder = StartForwarder();
  ASSERT_NE(forwarder, nullptr);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  ExpectEverySpanThereOnce();
  const ForwarderStatus status = forwarder->GetStatus();
  EXPECT_EQ(status.errors, 0u) << status.last_error;
  EXPECT_EQ(status.spans_lost_to_retention, 0u);
  EXPECT_EQ(status.table, "optrace.spans");

  // Spans committed while it runs follow.
  StoreSession(3, 700);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  ExpectEverySpanThereOnce();
}

TEST_F(ClickHouseForwarderTest, Restart_AfterAcknowledgedBatches_ResumesAtTheCursorNoDuplicates) {
  StoreSession(1, 3000);
  auto forwarder = StartForwarder();
  ASSERT_NE(forwarder, nullptr);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  const uint64_t batches_before = forwarder->GetStatus().batches_sent;
  forwarder.reset();

  // The cursor is in the database: what ClickHouse acknowledged.
  ForwardProgress durable;
  {
    auto cursor = ForwardCursor::Open(db_path_);
    ASSERT_TRUE(cursor.ok()) << cursor.status().message();
    auto progress = cursor.value()->Load();
    ASSERT_TRUE(progress.ok()) << progress.status().message();
    durable = progress.value();
  }
  EXPECT_EQ(durable.spans_sent, stored_spans_);
  EXPECT_EQ(durable.batches_sent, batches_before);
  EXPECT_GT(durable.page_id, 0u);

  StoreSession(2, 1500);
  forwarder = StartForwarder();
  ASSERT_NE(forwarder, nullptr);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  ExpectEverySpanThereOnce();
  EXPECT_GT(forwarder->GetStatus().batches_sent, durable.batches_sent) << "the new spans' batches";
}

TEST_F(ClickHouseForwarderTest, ServerDown_SpansStoredMeanwhile_RetriedAndCaughtUpWithoutLoss) {
  StoreSession(1, 2000);
  auto forwarder = StartForwarder();
  ASSERT_NE(forwarder, nullptr);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;

  server_->Kill();  // down, as a crash leaves it
  StoreSession(2, 2500);
  ASSERT_TRUE(WaitUntil(
      [&] {
        const ForwarderStatus status = forwarder->GetStatus();
        return status.errors >= 2 && status.backlog_spans == 2500;
      },
      kDeadline))
      << "it keeps trying while the server is down; status: errors "
      << forwarder->GetStatus().errors << ", backlog " << forwarder->GetStatus().backlog_spans;
  EXPECT_NE(forwarder->GetStatus().last_error, "");
  EXPECT_EQ(forwarder->GetStatus().spans_sent, 2000u) << "nothing counted as sent meanwhile";

  std::string why;
  ASSERT_TRUE(server_->Start(&why)) << why;
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  ExpectEverySpanThereOnce();
  const ForwarderStatus status = forwarder->GetStatus();
  EXPECT_EQ(status.last_error, "") << "cleared by the next success";
  EXPECT_EQ(status.spans_lost_to_retention, 0u);
}

// A table an optraced before self time created: the forwarder adds
// self_ns; the rows it held read their duration (nothing was subtracted
// then), the forwarded ones their self time.
TEST_F(ClickHouseForwarderTest, TableWithoutSelfNs_ColumnAdded_OldRowsReadDurationNewRowsSelf) {
  for (const std::string& statement : SchemaStatements(tables_)) {
    QueryThere(statement, SchemaSettings());
  }
  QueryThere("ALTER TABLE optrace.spans DROP COLUMN self_ns");
  ASSERT_EQ(QueryThere(HasColumnQuery("optrace.spans", "self_ns")), "0\n");
  QueryThere(
      "INSERT INTO optrace.spans (node, session_id, op_id, start_unix_ns, duration_ns, status) "
      "VALUES ('older', 9, 1, 1000000000, 700, 'ok')");

  std::vector<Span> spans = testing::SpanRun(1, 1'000'000'000, 300);
  uint64_t self_sum = 0;
  for (Span& span : spans) {
    span.status = SpanStatus::kOk;
    span.children_ns = span.duration_ns / 4;
    self_sum += SelfNs(span);
  }
  store_.AddSession(testing::MakeSession(1), spans);
  stored_spans_ += spans.size();
  auto forwarder = StartForwarder();
  ASSERT_NE(forwarder, nullptr);
  ASSERT_TRUE(WaitForwardedAll(*forwarder)) << forwarder->GetStatus().last_error;
  EXPECT_EQ(QueryThere("SELECT sum(self_ns) FROM optrace.spans WHERE node = '" +
                       std::string(kNode) + "'"),
            std::to_string(self_sum) + "\n");
  EXPECT_EQ(QueryThere("SELECT self_ns FROM optrace.spans WHERE node = 'older'"), "700\n");
}

}  // namespace
}  // namespace optrace::daemon
