// `optrace export` of a real session in each format, parsed back.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli_harness.h"
#include "perfetto_trace_reader.h"

namespace optrace::cli::testing {
namespace {

using optrace::testing::SplitLines;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ExportTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    run_ = Produce({"--ops", "200"}, "export-me");
    ASSERT_NE(run_.session_id, 0u) << daemon_.log();
    id_ = std::to_string(run_.session_id);
  }
  ProducerRun run_;
  std::string id_;
};

TEST_F(ExportTest, Chrome_ParsedBackEveryOpOnceAndTheFinalLine) {
  const std::string path = folder_.path() + "/trace.json";
  const CliRun run = Cli({"export", id_, "--format", "chrome", "-o", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::regex final_line("wrote session " + id_ + R"( as Chrome trace JSON \()" +
                              std::to_string(run_.done.at("launches")) +
                              R"( spans, [0-9.]+ KiB\) to )" + path +
                              R"(; open it in https://ui\.perfetto\.dev or chrome://tracing\n)");
  EXPECT_TRUE(std::regex_match(run.out, final_line)) << run.out;
  EXPECT_EQ(run.err, "") << "no progress bar into a pipe";
  const auto json = nlohmann::json::parse(ReadFile(path));
  size_t complete_events = 0;
  for (const auto& e : json["traceEvents"]) complete_events += e["ph"] == "X";
  EXPECT_EQ(complete_events, run_.done.at("launches"));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(ExportTest, Perfetto_ParsedBackEveryOpASliceOnItsTrackWithItsName) {
  const std::string path = folder_.path() + "/trace.pftrace";
  const CliRun run = Cli({"export", id_, "--format", "perfetto", "-o", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::regex final_line(
      "wrote session " + id_ + R"( as Perfetto trace \()" +
      std::to_string(run_.done.at("launches")) + R"( spans, [0-9.]+ KiB\) to )" + path +
      R"(; open it in https://ui\.perfetto\.dev or with trace_processor )" + path + "\n");
  EXPECT_TRUE(std::regex_match(run.out, final_line)) << run.out;
  const optrace::testing::PerfettoTrace trace = optrace::testing::ReadPerfettoTrace(ReadFile(path));
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  ASSERT_EQ(trace.tracks.count(1), 1u);
  EXPECT_TRUE(trace.tracks.at(1).process);
  // Launch instants of device work, by flow id.
  std::map<uint64_t, const optrace::testing::PerfettoSlice*> launches;
  for (const auto& slice : trace.slices) {
    if (slice.instant && slice.flow_ids.size() == 1) launches[slice.flow_ids[0]] = &slice;
  }
  size_t slices = 0;
  size_t device_slices = 0;
  std::set<std::string> op_ids;
  for (const auto& slice : trace.slices) {
    if (slice.instant) continue;
    ++slices;
    op_ids.insert(slice.args.at("op_id"));
    EXPECT_FALSE(slice.name.empty());
    EXPECT_LE(slice.start_ns, slice.end_ns);
    const auto& track = trace.tracks.at(slice.track);
    if (slice.category == "cpu") {
      EXPECT_TRUE(track.thread) << slice.name;
      EXPECT_EQ(track.pid, trace.tracks.at(1).pid);
      continue;
    }
    ++device_slices;
    EXPECT_EQ(slice.category, "gpu") << slice.name;
    EXPECT_EQ(track.name.rfind("gpu:", 0), 0u) << track.name;
    EXPECT_EQ(track.parent_uuid, 1u);
    ASSERT_EQ(slice.terminating_flow_ids.size(), 1u);
    const auto launch = launches.find(slice.terminating_flow_ids[0]);
    ASSERT_NE(launch, launches.end()) << "a flow from the launch";
    EXPECT_EQ(launch->second->name, slice.name);
    EXPECT_TRUE(trace.tracks.at(launch->second->track).thread);
    EXPECT_LE(launch->second->start_ns, slice.start_ns);
  }
  EXPECT_EQ(slices, run_.done.at("launches"));
  EXPECT_EQ(op_ids.size(), slices) << "each op once";
  EXPECT_EQ(launches.size(), device_slices);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(ExportTest, Range_FromTo_OnlyTheSpansThatOverlapIt) {
  const std::string whole_path = folder_.path() + "/whole.pftrace";
  ASSERT_EQ(Cli({"export", id_, "--format", "perfetto", "-o", whole_path}).exit_code, 0);
  const auto whole =
      optrace::testing::OpSliceTimes(optrace::testing::ReadPerfettoTrace(ReadFile(whole_path)));
  std::vector<int64_t> starts;
  for (const auto& [op, times] : whole) starts.push_back(times.first);
  std::sort(starts.begin(), starts.end());
  ASSERT_GE(starts.size(), 3u);
  const int64_t session_start = run_.session.at("start_unix_ns").get<int64_t>();
  const int64_t from = starts[starts.size() / 3] + 1;
  const int64_t to = starts[2 * starts.size() / 3];
  const std::set<std::string> expected = optrace::testing::OpsOverlapping(whole, from, to);
  ASSERT_LT(expected.size(), whole.size());

  const std::string path = folder_.path() + "/range.pftrace";
  const CliRun run = Cli({"export", id_, "--format", "perfetto", "-o", path, "--from",
                          std::to_string(from - session_start) + "ns", "--to",
                          std::to_string(to - session_start) + "ns"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("(" + std::to_string(expected.size()) + " spans, "), std::string::npos)
      << run.out;
  const optrace::testing::PerfettoTrace trace = optrace::testing::ReadPerfettoTrace(ReadFile(path));
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  std::set<std::string> got;
  for (const auto& [op, times] : optrace::testing::OpSliceTimes(trace)) {
    got.insert(op);
    EXPECT_EQ(times, whole.at(op)) << "op " << op << ": the same times as in the whole session";
  }
  EXPECT_EQ(got, expected);
}

TEST_F(ExportTest, Range_ToNotAfterFrom_UsageErrorAndNothingWritten) {
  const std::string path = folder_.path() + "/range.csv";
  const CliRun run =
      Cli({"export", id_, "--format", "csv", "-o", path, "--from", "2ms", "--to", "1ms"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("is not after --from"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
}

TEST_F(ExportTest, Csv_HeaderAndOneLinePerSpan) {
  const std::string path = folder_.path() + "/spans.csv";
  const CliRun run = Cli({"export", id_, "--format", "csv", "-o", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("wrote session " + id_ + " as CSV (", 0), 0u) << run.out;
  EXPECT_EQ(SplitLines(ReadFile(path)).size(), run_.done.at("launches") + 1);
}

TEST_F(ExportTest, Sqlite_ADatabaseFile) {
  const std::string path = folder_.path() + "/spans.db";
  const CliRun run = Cli({"export", id_, "--format", "sqlite", "-o", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("; open it with sqlite3 " + path), std::string::npos) << run.out;
  EXPECT_EQ(ReadFile(path).substr(0, 16), std::string("SQLite format 3\0", 16));
}

TEST_F(ExportTest, RelativeOutput_ReportedAbsolute) {
  const CliRun run = RunCli(
      {"--socket", daemon_.socket_path(), "export", id_, "--format", "csv", "-o", "relative.csv"},
      {}, std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_NE(run.out.find(" to " + cwd + "/relative.csv"), std::string::npos) << run.out;
  std::filesystem::remove(cwd + "/relative.csv");
}

TEST_F(ExportTest, UnwritableFolder_Exit1AndNothingLeft) {
  const std::string path = folder_.path() + "/no/such/folder/x.json";
  const CliRun run = Cli({"export", id_, "--format", "chrome", "-o", path});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(
      run.err.rfind("optrace: cannot write " + path + ".partial: No such file or directory", 0), 0u)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace optrace::cli::testing
