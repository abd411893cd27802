// Fleets end to end (issue 11): two real clickhouse-server processes as
// two shards of one cluster, two real optraced daemons as two nodes (each
// its own namespace, database and ClickHouse), real producer processes,
// real gRPC over the daemons' sockets, and the real `optrace` CLI.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "answer_dropping_proxy.h"
#include "clickhouse_server.h"
#include "daemon_process.h"
#include "forward/clickhouse_client.h"
#include "forward/clickhouse_schema.h"
#include "forward/row_binary.h"
#include "forward/span_rows.h"
#include "optrace/v1/optrace.grpc.pb.h"
#include "storage/sqlite_connection.h"
#include "subprocess.h"
#include "temp_folder.h"
#include "test_producer.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using testing::ClickHousePorts;
using testing::ClickHouseServer;
using testing::DaemonProcess;
using testing::StartTestProducer;
using testing::Subprocess;
using testing::WaitUntil;

constexpr const char* kCluster = "fleet";

// The per-key figures that must add up across nodes.
struct KeyTotals {
  uint64_t count = 0;
  uint64_t ok_count = 0;
  uint64_t total_ns = 0;
  uint64_t self_ns = 0;
  uint64_t min_ns = UINT64_MAX;
  uint64_t max_ns = 0;

  void Add(const v1::OpStats& row) {
    count += row.count();
    ok_count += row.ok_count();
    total_ns += row.total_ns();
    self_ns += row.self_ns();
    if (row.ok_count() > 0) min_ns = std::min(min_ns, row.min_ns());
    max_ns = std::max(max_ns, row.max_ns());
  }
  bool operator==(const KeyTotals&) const = default;
};

std::ostream& operator<<(std::ostream& out, const KeyTotals& t) {
  return out << "{count " << t.count << ", ok " << t.ok_count << ", total " << t.total_ns
             << ", self " << t.self_ns << ", min " << t.min_ns << ", max " << t.max_ns << "}";
}

// One node: a daemon with its own namespace and database that forwards to
// its own ClickHouse shard ("" = does not forward), and a gRPC stub to it.
// `forward_config` is more config lines for forwarding.
class Node {
 public:
  Node(const std::string& folder, const std::string& name, const std::string& clickhouse_url,
       const std::string& forward_config =
           "forward_clickhouse_batch_spans = 20000\nforward_clickhouse_flush_interval = "
           "\"200ms\"\n")
      : name_(name), ns_(std::string(std::getenv("OPTRACE_NAMESPACE")) + name) {
    const std::string config = folder + "/optraced.toml";
    std::ofstream file(config);
    file << "node = \"" << name << "\"\n";
    if (!clickhouse_url.empty()) {
      file << "forward_clickhouse_url = \"" << clickhouse_url << "\"\n"
           << "forward_clickhouse_cluster = \"" << kCluster << "\"\n"
           << forward_config;
    }
    file.close();
    daemon_ = std::make_unique<DaemonProcess>(
        folder, std::vector<std::string>{"--config", config, "--namespace", ns_});
  }

  bool Start() {
    if (!daemon_->Start()) return false;
    stub_ = v1::OpTrace::NewStub(
        grpc::CreateChannel("unix:" + daemon_->socket_path(), grpc::InsecureChannelCredentials()));
    return true;
  }

  // A producer of this node: its namespace and session `label`, tracing
  // from the start, with rings of `ring_capacity` events (a full ring
  // drops events).
  std::unique_ptr<Subprocess> StartProducer(const std::vector<std::string>& args,
                                            const std::string& label,
                                            uint32_t ring_capacity = 65536) {
    return StartTestProducer(args, {{"OPTRACE_NAMESPACE", ns_},
                                    {"OPTRACE_SESSION", label},
                                    {"OPTRACE_RING_CAPACITY", std::to_string(ring_capacity)}});
  }

  std::vector<v1::Session> Sessions() {
    grpc::ClientContext context;
    v1::ListSessionsRequest request;
    request.set_all(true);
    v1::ListSessionsResponse response;
    EXPECT_TRUE(stub_->ListSessions(&context, request, &response).ok());
    return {response.sessions().begin(), response.sessions().end()};
  }

  v1::GetStatusResponse Status() {
    grpc::ClientContext context;
    v1::GetStatusResponse response;
    EXPECT_TRUE(stub_->GetStatus(&context, v1::GetStatusRequest(), &response).ok());
    return response;
  }

  grpc::Status Stats(const v1::GetStatsRequest& request, v1::GetStatsResponse* response) {
    grpc::ClientContext context;
    return stub_->GetStats(&context, request, response);
  }

  // Spans stored here, from each session's statistics (what the database holds).
  uint64_t StoredSpans() {
    uint64_t spans = 0;
    for (const v1::Session& session : Sessions()) {
      v1::GetStatsRequest request;
      request.set_session_id(session.id());
      v1::GetStatsResponse response;
      EXPECT_TRUE(Stats(request, &response).ok());
      spans += response.spans();
    }
    return spans;
  }

  // Waits until the node has `sessions` sessions, all ended and stored,
  // and ClickHouse has acknowledged all of it.
  bool WaitForwarded(size_t sessions, std::chrono::seconds timeout) {
    return WaitUntil(
        [&] {
          const std::vector<v1::Session> all = Sessions();
          if (all.size() != sessions) return false;
          for (const v1::Session& session : all) {
            if (session.state() == v1::SESSION_STATE_RUNNING) return false;
          }
          const v1::GetStatusResponse status = Status();
          return status.writer_backlog_batches() == 0 && status.forward().backlog_spans() == 0 &&
                 status.forward().spans_sent() == StoredSpans();
        },
        timeout);
  }

  // Local statistics of every session, merged per name.
  std::map<std::string, KeyTotals> LocalTotalsByName() {
    std::map<std::string, KeyTotals> totals;
    for (const v1::Session& session : Sessions()) {
      v1::GetStatsRequest request;
      request.set_session_id(session.id());
      v1::GetStatsResponse response;
      EXPECT_TRUE(Stats(request, &response).ok());
      for (const v1::OpStats& row : response.rows()) totals[row.key()].Add(row);
    }
    return totals;
  }

  v1::OpTrace::Stub& stub() { return *stub_; }
  const std::string& name() const { return name_; }
  DaemonProcess& daemon() { return *daemon_; }

 private:
  std::string name_;
  std::string ns_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
};

// Runs `sql` on `url`; "" (and a test failure) when it fails.
std::string ClickHouseQuery(const std::string& url, const std::string& sql,
                            const daemon::ClickHouseClient::Settings& settings = {}) {
  daemon::ClickHouseEndpoint endpoint;
  endpoint.url = url;
  auto client = daemon::ClickHouseClient::Create(endpoint);
  EXPECT_TRUE(client.ok());
  auto answer = client.value()->Query(sql, settings);
  EXPECT_TRUE(answer.ok()) << answer.status().message();
  return answer.ok() ? answer.value() : "";
}

// Runs `command` with /bin/sh; its exit code (-1 when it did not end in 10 minutes).
int RunShell(const std::string& command) {
  Subprocess shell({"/bin/sh", "-c", command});
  const auto status = shell.Wait(600s);
  if (!status || status->code != 0) ADD_FAILURE() << command << ": " << shell.stderr_text();
  return status ? status->code : -1;
}

// Stores the spans of `runs` producers, one after another (each
// `threads` x `ops` op pairs, rings of `ring_capacity` events: a session
// and at least one span page each), with a node of `folder` that does not
// forward, and stops it: a backlog for a forwarding node of `folder`.
// Returns the spans stored (0, and a test failure, when something failed).
uint64_t StoreBacklog(const std::string& folder, const std::string& name, int runs, int threads,
                      long ops, uint32_t ring_capacity) {
  Node idle(folder, name, "");
  if (!idle.Start()) {
    ADD_FAILURE() << idle.daemon().log();
    return 0;
  }
  for (int run = 0; run < runs; ++run) {
    const auto exited =
        idle.StartProducer({"--threads", std::to_string(threads), "--ops", std::to_string(ops)},
                           name, ring_capacity)
            ->Wait(600s);
    if (!exited.has_value()) {
      ADD_FAILURE() << "producer " << run << " did not exit";
      return 0;
    }
  }
  const bool stored = WaitUntil(
      [&] {
        const std::vector<v1::Session> sessions = idle.Sessions();
        for (const v1::Session& session : sessions) {
          if (session.state() == v1::SESSION_STATE_RUNNING) return false;
        }
        return sessions.size() == static_cast<size_t>(runs) &&
               idle.Status().writer_backlog_batches() == 0;
      },
      120s);
  // Counted here: a GetStats beside a forwarder would take its CPU.
  const uint64_t spans = stored ? idle.StoredSpans() : 0;
  EXPECT_TRUE(stored) << idle.daemon().log();
  EXPECT_EQ(idle.daemon().Stop(), 0);
  return spans;
}

// Rows and distinct spans of `node` in `table` of `url`.
std::pair<uint64_t, uint64_t> RowsAndSpansThere(const std::string& url, const std::string& table,
                                                const std::string& node) {
  const std::string answer =
      ClickHouseQuery(url, "SELECT count(), uniqExact(session_id, op_id) FROM " + table +
                               " WHERE node = '" + node + "' FORMAT RowBinary");
  daemon::RowBinaryReader reader(answer);  // borrows `answer`
  const uint64_t rows = reader.Int<uint64_t>();
  const uint64_t distinct = reader.Int<uint64_t>();
  EXPECT_TRUE(reader.status().ok()) << reader.status().message();
  return {rows, distinct};
}

testing::ExitStatus RunCli(const std::vector<std::string>& args, std::string* out) {
  std::vector<std::string> argv = {OPTRACE_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess cli(argv);
  const auto status = cli.Wait(60s);
  *out = cli.stdout_text() + cli.stderr_text();
  return status.value_or(testing::ExitStatus{});
}

class FleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const auto binary = testing::FindClickHouseServer(&why);
    if (!binary) GTEST_SKIP() << why;
    const ClickHousePorts ports[2] = {ClickHousePorts::Free(), ClickHousePorts::Free()};
    const std::string cluster = testing::ClusterConfig(kCluster, {ports[0], ports[1]});
    for (int i = 0; i < 2; ++i) {
      const std::string folder = folder_.path() + "/clickhouse" + std::to_string(i + 1);
      std::filesystem::create_directories(folder);
      servers_[i] = std::make_unique<ClickHouseServer>(*binary, folder, ports[i], cluster);
      ASSERT_TRUE(servers_[i]->Start(&why)) << why;
    }
    for (int i = 0; i < 2; ++i) {
      const std::string folder = folder_.path() + "/node" + std::to_string(i + 1);
      std::filesystem::create_directories(folder);
      nodes_[i] = std::make_unique<Node>(folder, i == 0 ? "node-a" : "node-b", servers_[i]->url());
      ASSERT_TRUE(nodes_[i]->Start()) << nodes_[i]->daemon().log();
    }
  }

  testing::TempFolder folder_;
  std::unique_ptr<ClickHouseServer> servers_[2];
  std::unique_ptr<Node> nodes_[2];
};

TEST_F(FleetTest, FleetStats_TwoNodes_EqualUnionOfLocalStats) {
  // Two producers on node A, one on node B, with two labels.
  std::vector<std::unique_ptr<Subprocess>> producers;
  producers.push_back(nodes_[0]->StartProducer({"--threads", "2", "--ops", "5000"}, "train"));
  producers.push_back(nodes_[0]->StartProducer({"--threads", "1", "--ops", "8000"}, "eval"));
  producers.push_back(nodes_[1]->StartProducer({"--threads", "2", "--ops", "6000"}, "train"));
  for (auto& producer : producers) ASSERT_TRUE(producer->Wait(60s).has_value());
  for (int i = 0; i < 2; ++i) {
    Node* node = nodes_[i].get();
    ASSERT_TRUE(node->WaitForwarded(i == 0 ? 2 : 1, 60s))
        << node->name() << ": " << node->Status().forward().DebugString() << node->daemon().log();
  }

  std::map<std::string, KeyTotals> local;
  for (auto& node : nodes_) {
    for (const auto& [key, totals] : node->LocalTotalsByName()) {
      KeyTotals& sum = local[key];
      sum.count += totals.count;
      sum.ok_count += totals.ok_count;
      sum.total_ns += totals.total_ns;
      sum.self_ns += totals.self_ns;
      sum.min_ns = std::min(sum.min_ns, totals.min_ns);
      sum.max_ns = std::max(sum.max_ns, totals.max_ns);
    }
  }
  ASSERT_EQ(local.size(), 3u) << "start, outer and inner";

  // Either node answers for the whole fleet (through the Distributed table).
  for (auto& node : nodes_) {
    v1::GetStatsRequest request;
    request.set_fleet(true);
    v1::GetStatsResponse fleet;
    const grpc::Status status = node->Stats(request, &fleet);
    ASSERT_TRUE(status.ok()) << status.error_message();
    std::map<std::string, KeyTotals> remote;
    for (const v1::OpStats& row : fleet.rows()) {
      remote[row.key()].Add(row);
      EXPECT_EQ(row.nodes(), 2u) << row.key();
    }
    EXPECT_EQ(remote, local) << "asked through " << node->name();
  }

  // Per node: node A's rows are node A's own statistics.
  v1::GetStatsRequest per_node;
  per_node.set_fleet(true);
  per_node.set_per_node(true);
  per_node.mutable_fleet_filter()->set_label("train");
  v1::GetStatsResponse split;
  ASSERT_TRUE(nodes_[1]->Stats(per_node, &split).ok());
  uint64_t train_spans = 0;
  for (const v1::OpStats& row : split.rows()) {
    EXPECT_TRUE(row.node() == "node-a" || row.node() == "node-b") << row.node();
    train_spans += row.count();
  }
  EXPECT_EQ(train_spans, (2 * 5000 * 2 + 1) + (2 * 6000 * 2 + 1)) << "outer+inner per op, 1 start";

  // Compare node A with node B, by name: counts are each node's.
  {
    grpc::ClientContext context;
    v1::CompareSessionsRequest request;
    request.set_fleet(true);
    request.mutable_fleet_a()->set_node("node-a");
    request.mutable_fleet_b()->set_node("node-b");
    v1::CompareSessionsResponse comparison;
    ASSERT_TRUE(nodes_[0]->stub().CompareSessions(&context, request, &comparison).ok());
    const auto a = nodes_[0]->LocalTotalsByName();
    const auto b = nodes_[1]->LocalTotalsByName();
    ASSERT_EQ(comparison.rows_size(), 3);
    for (const v1::Comparison& row : comparison.rows()) {
      EXPECT_EQ(row.count_a(), a.at(row.key()).count) << row.key();
      EXPECT_EQ(row.count_b(), b.at(row.key()).count) << row.key();
      EXPECT_EQ(row.total_b_ns(), b.at(row.key()).total_ns) << row.key();
    }
  }

  // Fleet spans page through without skipping or repeating one.
  {
    std::set<std::tuple<std::string, uint64_t, uint64_t>> seen;
    std::string cursor;
    int pages = 0;
    do {
      grpc::ClientContext context;
      v1::QueryOpsRequest request;
      request.set_fleet(true);
      request.mutable_filter()->set_tag_pattern("^shape_3$");
      request.set_limit(700);
      request.set_cursor(cursor);
      auto reader = nodes_[0]->stub().QueryOps(&context, request);
      v1::QueryOpsResponse chunk;
      cursor.clear();
      while (reader->Read(&chunk)) {
        for (const v1::Span& span : chunk.spans()) {
          EXPECT_EQ(span.tag(), "shape_3");
          EXPECT_TRUE(seen.insert({span.node(), span.session_id(), span.op_id()}).second);
        }
        cursor = chunk.next_cursor();
      }
      ASSERT_TRUE(reader->Finish().ok());
      ++pages;
    } while (!cursor.empty());
    // shape_i is the tag of every 8th outer op.
    EXPECT_EQ(seen.size(), 2 * 5000 / 8 + 8000 / 8 + 2 * 6000 / 8);
    EXPECT_GT(pages, 1);
  }

  // The CLI: the local formats plus a node column.
  std::string out;
  const std::string socket = nodes_[0]->daemon().socket_path();
  EXPECT_EQ(RunCli({"--socket", socket, "stats", "--fleet"}, &out).code, 0) << out;
  EXPECT_NE(out.find("NODES"), std::string::npos) << out;
  EXPECT_NE(out.find("outer"), std::string::npos) << out;
  EXPECT_EQ(
      RunCli({"--socket", socket, "stats", "--fleet", "--per-node", "--name", "^inner$"}, &out)
          .code,
      0)
      << out;
  EXPECT_NE(out.find("node-b"), std::string::npos) << out;
  EXPECT_EQ(
      RunCli({"--socket", socket, "ops", "--fleet", "--node", "node-b", "--limit", "3"}, &out).code,
      0)
      << out;
  EXPECT_NE(out.find("NODE"), std::string::npos) << out;
  EXPECT_NE(out.find("first 3 spans shown"), std::string::npos) << out;
  EXPECT_EQ(RunCli({"--socket", socket, "diff", "--fleet", "node-a", "node-b"}, &out).code, 0)
      << out;
  EXPECT_NE(out.find("A = node node-a"), std::string::npos) << out;
}

TEST_F(FleetTest, Outage_ClickHouseKilledMidRun_NothingLostOrDoubled) {
  Node& node = *nodes_[0];
  // A steady stream of short producers (about 50k spans a second) until
  // told to stop: the node keeps tracing through the outage.
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  std::thread traffic([&] {
    while (!stop.load()) {
      auto producer = node.StartProducer({"--threads", "1", "--ops", "5000"}, "steady");
      producer->Wait(60s);
      ++runs;
      std::this_thread::sleep_for(150ms);
    }
  });
  struct Join {
    std::atomic<bool>& stop;
    std::thread& thread;
    ~Join() {
      stop.store(true);
      if (thread.joinable()) thread.join();
    }
  } join{stop, traffic};

  ASSERT_TRUE(WaitUntil([&] { return node.Status().forward().spans_sent() > 0; }, 30s))
      << node.Status().forward().DebugString();

  // Node A's shard dies mid-run; node A keeps tracing and storing.
  servers_[0]->Kill();
  const uint64_t stored_before = node.StoredSpans();
  EXPECT_TRUE(WaitUntil(
      [&] {
        const v1::GetStatusResponse status = node.Status();
        return status.forward().errors() > 0 && status.forward().backlog_spans() > 0 &&
               node.StoredSpans() > stored_before + 100'000;
      },
      60s))
      << node.Status().forward().DebugString();
  EXPECT_NE(node.Status().forward().last_error(), "");

  std::string why;
  ASSERT_TRUE(servers_[0]->Start(&why)) << why;
  const int runs_at_restart = runs.load();
  ASSERT_TRUE(WaitUntil([&] { return runs.load() >= runs_at_restart + 3; }, 60s));
  stop.store(true);
  traffic.join();
  ASSERT_TRUE(node.WaitForwarded(static_cast<size_t>(runs.load()), 120s))
      << node.Status().forward().DebugString() << node.daemon().log();

  const v1::GetStatusResponse status = node.Status();
  EXPECT_EQ(status.forward().spans_lost_to_retention(), 0u);
  EXPECT_EQ(status.forward().last_error(), "");
  EXPECT_EQ(status.counters().at("forward_backlog_spans"), 0u);
  const uint64_t stored = node.StoredSpans();
  // Every span once: as many rows as distinct spans, as many as stored.
  const std::string answer = ClickHouseQuery(
      servers_[1]->url(),
      "SELECT count(), uniqExact(node, session_id, op_id) FROM optrace.spans WHERE node = "
      "'node-a' FORMAT RowBinary");
  daemon::RowBinaryReader reader(answer);
  const uint64_t rows = reader.Int<uint64_t>();
  const uint64_t distinct = reader.Int<uint64_t>();
  ASSERT_TRUE(reader.status().ok()) << reader.status().message();
  EXPECT_EQ(rows, stored) << "rows in ClickHouse vs spans stored locally";
  EXPECT_EQ(distinct, stored);
  EXPECT_EQ(status.forward().spans_sent(), stored);
}

// The daemon stopped between ClickHouse's 200 and the cursor's commit (here:
// the cursor is rewound by hand): at start it asks ClickHouse which pages
// it holds, and sends none of them again.
TEST_F(FleetTest, Restart_CursorBehindClickHouse_NoPageSentTwice) {
  Node& node = *nodes_[0];
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(node.StartProducer({"--threads", "1", "--ops", "4000"}, "rerun")->Wait(60s));
  }
  ASSERT_TRUE(node.WaitForwarded(3, 60s)) << node.Status().forward().DebugString();
  const uint64_t stored = node.StoredSpans();
  ASSERT_EQ(node.daemon().Stop(), 0);
  {
    auto db = daemon::SqliteConnection::Open(node.daemon().db_path(),
                                             daemon::SqliteOpenMode::kReadWriteCreate, 5000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    ASSERT_TRUE(db.value()->Exec("UPDATE forward_cursor SET page_id = 0, spans_sent = 0").ok());
  }
  ASSERT_TRUE(node.Start()) << node.daemon().log();
  ASSERT_TRUE(node.WaitForwarded(3, 60s)) << node.Status().forward().DebugString();
  EXPECT_NE(node.daemon().log().find("already held "), std::string::npos) << node.daemon().log();
  const std::string answer = ClickHouseQuery(
      servers_[0]->url(), "SELECT count() FROM optrace.spans_local FORMAT RowBinary");
  daemon::RowBinaryReader reader(answer);
  EXPECT_EQ(reader.Int<uint64_t>(), stored) << "every span once";
}

// Batches land in any order while several are in flight, and the daemon
// is killed (SIGKILL) up to three times mid-pipeline, each time once more
// batches were acknowledged, with batches out and maybe acknowledged ones
// whose cursor commit it never made: after the last start ClickHouse
// holds every span once.
TEST_F(FleetTest, Restart_KilledMidPipeline_EverySpanOnce) {
  const std::string folder = folder_.path() + "/pipeline";
  std::filesystem::create_directories(folder);
  constexpr int kRuns = 30;
  const uint64_t stored = StoreBacklog(folder, "node-p", kRuns, 1, 2000, 65536);
  ASSERT_EQ(stored, kRuns * (2u * 2000 + 1));
  // Small batches: many of them, several in flight at any time.
  Node node(folder, "node-p", servers_[0]->url(),
            "forward_clickhouse_batch_spans = 2000\nforward_clickhouse_flush_interval = "
            "\"100ms\"\n");
  uint64_t sent_before = 0;
  int kills = 0;
  for (; kills < 3; ++kills) {
    ASSERT_TRUE(node.Start()) << node.daemon().log();
    ASSERT_TRUE(WaitUntil([&] { return node.Status().forward().spans_sent() > sent_before; }, 60s))
        << node.Status().forward().DebugString();
    if (node.Status().forward().spans_sent() == stored) break;  // all sent before the kill
    node.daemon().Kill();
    auto db = daemon::SqliteConnection::Open(node.daemon().db_path(),
                                             daemon::SqliteOpenMode::kReadOnly, 5000);
    ASSERT_TRUE(db.ok()) << db.status().message();
    auto select = db.value()->Prepare("SELECT spans_sent FROM forward_cursor");
    ASSERT_TRUE(select.ok()) << select.status().message();
    const auto row = select.value().Step();
    ASSERT_TRUE(row.ok() && row.value()) << "no forward_cursor row";
    sent_before = select.value().ColumnUint64(0);
  }
  EXPECT_GE(kills, 1) << "the daemon was never killed with a backlog";
  if (kills == 3) {  // killed, not running: the last start
    ASSERT_TRUE(node.Start()) << node.daemon().log();
  }
  ASSERT_TRUE(node.WaitForwarded(kRuns, 120s)) << node.Status().forward().DebugString();
  const auto [rows, distinct] =
      RowsAndSpansThere(servers_[0]->url(), "optrace.spans_local", "node-p");
  EXPECT_EQ(rows, stored) << "rows in ClickHouse vs spans stored locally";
  EXPECT_EQ(distinct, stored);
  EXPECT_EQ(node.Status().forward().spans_sent(), stored);
}

// Three INSERTs that ClickHouse applied but whose answers never came (the
// proxy closes their connections instead), with other batches in flight
// around them: the forwarder finds those pages there, and every span is in
// ClickHouse once.
TEST_F(FleetTest, UnknownOutcome_AnswersLostMidPipeline_EverySpanOnce) {
  const std::string folder = folder_.path() + "/unknown";
  std::filesystem::create_directories(folder);
  constexpr int kRuns = 30;
  const uint64_t stored = StoreBacklog(folder, "node-u", kRuns, 1, 2000, 65536);
  ASSERT_EQ(stored, kRuns * (2u * 2000 + 1));
  testing::AnswerDroppingProxy proxy(servers_[0]->ports().http);
  ASSERT_TRUE(proxy.ok());
  proxy.DropInsertAnswers(3);
  Node node(folder, "node-u", proxy.url(),
            "forward_clickhouse_batch_spans = 2000\nforward_clickhouse_flush_interval = "
            "\"100ms\"\n");
  ASSERT_TRUE(node.Start()) << node.daemon().log();
  ASSERT_TRUE(node.WaitForwarded(kRuns, 120s)) << node.Status().forward().DebugString();
  EXPECT_EQ(proxy.dropped(), 3);
  const v1::ForwardStatus forward = node.Status().forward();
  EXPECT_GE(forward.errors(), 1u);
  EXPECT_EQ(forward.last_error(), "");
  EXPECT_NE(node.daemon().log().find("already held "), std::string::npos) << node.daemon().log();
  const auto [rows, distinct] =
      RowsAndSpansThere(servers_[0]->url(), "optrace.spans_local", "node-u");
  EXPECT_EQ(rows, stored) << "rows in ClickHouse vs spans stored locally";
  EXPECT_EQ(distinct, stored);
  EXPECT_EQ(forward.spans_sent(), stored);
}

// A ClickHouse table by the configured name that is not optrace's: every
// INSERT and every fleet query is refused. The node keeps storing and
// answering local queries, counts and shows the error, and fleet queries
// fail with UNAVAILABLE naming the ClickHouse server.
TEST_F(FleetTest, Malicious_ForeignTableInClickHouse_ErrorsShownNodeKeepsStoring) {
  const std::string url = servers_[0]->url();
  ClickHouseQuery(url, "CREATE DATABASE IF NOT EXISTS optrace");
  ClickHouseQuery(url, "CREATE TABLE optrace.foreign_local (x UInt8) ENGINE = Memory");
  ClickHouseQuery(url, "CREATE TABLE optrace.foreign (x UInt8) ENGINE = Memory");
  const std::string folder = folder_.path() + "/foreign";
  std::filesystem::create_directories(folder);
  Node node(folder, "node-f", url,
            "forward_clickhouse_table = \"foreign\"\nforward_clickhouse_flush_interval = "
            "\"100ms\"\n");
  ASSERT_TRUE(node.Start()) << node.daemon().log();
  ASSERT_TRUE(node.StartProducer({"--threads", "1", "--ops", "2000"}, "foreign")->Wait(60s));
  ASSERT_TRUE(WaitUntil(
      [&] {
        const v1::GetStatusResponse status = node.Status();
        const uint64_t stored = node.StoredSpans();
        return stored == 2 * 2000 + 1 && status.forward().errors() > 0 &&
               status.forward().backlog_spans() == stored;
      },
      30s))
      << node.Status().forward().DebugString() << node.daemon().log();
  const v1::ForwardStatus forward = node.Status().forward();
  EXPECT_EQ(forward.spans_sent(), 0u);
  EXPECT_NE(forward.last_error().find("ClickHouse at " + url + ": HTTP "), std::string::npos)
      << forward.last_error();

  v1::GetStatsRequest request;
  request.set_fleet(true);
  v1::GetStatsResponse response;
  const grpc::Status status = node.Stats(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("ClickHouse at " + url), std::string::npos)
      << status.error_message();
  std::string out;
  EXPECT_EQ(RunCli({"--socket", node.daemon().socket_path(), "stats", "--fleet"}, &out).code, 1)
      << out;
  EXPECT_NE(out.find("fleet query failed"), std::string::npos) << out;
  // The daemon still serves its own spans.
  ASSERT_EQ(node.Sessions().size(), 1u);
  EXPECT_EQ(node.LocalTotalsByName().size(), 3u) << "start, outer and inner";
}

// Without ClickHouse, --fleet says what is missing.
TEST(FleetWithoutClickHouseTest, FleetStats_NoForwarding_FailedPreconditionNamesFlag) {
  testing::TempFolder folder;
  DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  auto stub = v1::OpTrace::NewStub(
      grpc::CreateChannel("unix:" + daemon.socket_path(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  request.set_fleet(true);
  v1::GetStatsResponse response;
  const grpc::Status status = stub->GetStats(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("--forward-clickhouse"), std::string::npos)
      << status.error_message();
  std::string out;
  EXPECT_EQ(RunCli({"--socket", daemon.socket_path(), "stats", "--fleet"}, &out).code, 1) << out;
  EXPECT_NE(out.find("fleet queries need ClickHouse"), std::string::npos) << out;
}

// The forwarder's throughput, for docs/fleet.md: spans stored with
// forwarding off, then a daemon that forwards them, timed from its start
// until ClickHouse has acknowledged them all. Not run by default:
//   fleet_integration_tests --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
// (tests/bench/forward_vs_clickhouse.sh), beside clickhouse-client inserting
// the same rows in RowBinary into the same server.
// OPTRACE_BENCH_SPANS_M (millions of ops per thread, 4 threads, two spans
// an op; default 0.25, at most 0.5 so that each thread's ring holds all of
// its events and none is dropped) sets the size.
TEST_F(FleetTest, DISABLED_Throughput_StoredBacklog_SpansPerSecond) {
  const char* size = std::getenv("OPTRACE_BENCH_SPANS_M");
  const long ops = static_cast<long>((size != nullptr ? std::atof(size) : 0.25) * 1e6);
  ASSERT_TRUE(ops > 0 && ops <= 500'000) << "OPTRACE_BENCH_SPANS_M must be in (0, 0.5]";
  constexpr uint32_t kRingCapacity = 1u << 20;  // the largest: 2 events an op fit
  for (const bool gzip : {false, true}) {
    const std::string folder = folder_.path() + (gzip ? "/bench-gzip" : "/bench");
    std::filesystem::create_directories(folder);
    const std::string name = gzip ? "bench-gzip" : "bench";
    const uint64_t stored = StoreBacklog(folder, name, 1, 4, ops, kRingCapacity);
    ASSERT_GT(stored, 0u);
    // Each timed phase starts with the server idle: no merge of the parts
    // that the phase before it wrote.
    const auto wait_for_merges = [&] {
      ASSERT_TRUE(WaitUntil(
          [&] {
            const std::string answer = ClickHouseQuery(
                servers_[0]->url(), "SELECT count() FROM system.merges FORMAT RowBinary");
            daemon::RowBinaryReader merges(answer);
            return merges.Int<uint64_t>() == 0 && merges.status().ok();
          },
          300s));
    };
    wait_for_merges();
    Node forwarding(folder, name, servers_[0]->url(),
                    std::string("forward_clickhouse_flush_interval = \"100ms\"\n") +
                        (gzip ? "forward_clickhouse_gzip = true\n" : ""));
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(forwarding.Start()) << forwarding.daemon().log();
    ASSERT_TRUE(WaitUntil(
        [&] {
          const v1::GetStatusResponse status = forwarding.Status();
          return status.forward().spans_sent() >= stored && status.forward().backlog_spans() == 0;
        },
        300s))
        << forwarding.Status().forward().DebugString();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const v1::ForwardStatus forward = forwarding.Status().forward();
    EXPECT_EQ(forward.spans_sent(), stored);
    std::printf(
        "forwarded %llu spans in %llu batches in %.2f s (daemon start included): "
        "%.0f spans/s, gzip %s\n",
        static_cast<unsigned long long>(stored),
        static_cast<unsigned long long>(forward.batches_sent()), seconds,
        static_cast<double>(stored) / seconds, gzip ? "on" : "off");
    EXPECT_EQ(forward.errors(), 0u) << forward.last_error();

    // The baseline, in the same run on the same server: clickhouse-client
    // inserting the same rows, in RowBinary, into a table like the span
    // table (the rows read back from ClickHouse into a file first).
    std::string columns;
    for (const std::string_view column : daemon::SpanColumns()) {
      columns += (columns.empty() ? "" : ", ") + std::string(column);
    }
    const std::string client = "clickhouse-client --host 127.0.0.1 --port " +
                               std::to_string(servers_[0]->ports().tcp) +
                               " --allow_experimental_low_cardinality_type=1 --query ";
    const std::string rows_file = folder + "/rows.bin";
    ASSERT_EQ(RunShell(client + "\"SELECT " + columns + " FROM optrace.spans_local WHERE node = '" +
                       name + "' FORMAT RowBinary\" > " + rows_file),
              0);
    const std::string url = servers_[0]->url();
    ClickHouseQuery(url, "DROP TABLE IF EXISTS optrace.spans_copy");
    ClickHouseQuery(url, "CREATE TABLE optrace.spans_copy AS optrace.spans_local",
                    daemon::SchemaSettings());
    wait_for_merges();
    const auto insert_start = std::chrono::steady_clock::now();
    ASSERT_EQ(RunShell(client + "\"INSERT INTO optrace.spans_copy (" + columns +
                       ") FORMAT RowBinary\" < " + rows_file),
              0);
    const double insert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - insert_start).count();
    const std::string copy_count =
        ClickHouseQuery(url, "SELECT count() FROM optrace.spans_copy FORMAT RowBinary");
    daemon::RowBinaryReader copied(copy_count);
    EXPECT_EQ(copied.Int<uint64_t>(), stored);
    std::printf(
        "clickhouse-client inserted the same %llu rows (RowBinary, %.0f MB) in %.2f s: %.0f "
        "rows/s; the forwarder ran at %.0f%% of it\n",
        static_cast<unsigned long long>(stored),
        static_cast<double>(std::filesystem::file_size(rows_file)) / 1e6, insert_seconds,
        static_cast<double>(stored) / insert_seconds, 100.0 * insert_seconds / seconds);
    std::filesystem::remove(rows_file);
  }
}

}  // namespace
}  // namespace optrace
