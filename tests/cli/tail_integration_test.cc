// `optrace tail` against a real daemon and real producers: the design's
// line format, -v, --json, filters, spans, raising levels, Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <regex>
#include <set>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::SplitLines;
using optrace::testing::Subprocess;
using optrace::testing::WaitUntil;

// The design's text format, exactly: "[OP] LAUNCH elementwise [id=40028] target=cpu:0".
const std::regex kOpLine(
    R"(\[OP\] (LAUNCH|COMPLETE) (\S+) \[id=(\d+)\] target=(cpu|gpu|other|none):\d+)");

class TailTest : public CliTest {
 protected:
  // Starts `optrace tail args...` and waits until the daemon counts it.
  std::unique_ptr<Subprocess> StartTail(std::vector<std::string> args) {
    args.insert(args.begin(), {OPTRACE_CLI, "--socket", daemon_.socket_path(), "tail"});
    auto tail = std::make_unique<Subprocess>(args);
    EXPECT_TRUE(WaitForTails(1)) << daemon_.log();
    return tail;
  }

  // Waits until `tail` printed `count` lines containing `needle`.
  static bool WaitForLines(Subprocess& tail, const std::string& needle, size_t count) {
    return WaitUntil(
        [&] {
          tail.Collect();
          size_t n = 0;
          for (const std::string& line : SplitLines(tail.stdout_text()))
            n += line.find(needle) != std::string::npos;
          return n >= count;
        },
        20s);
  }

  // Ctrl-C: the tail must end cleanly with exit code 0.
  static void Interrupt(Subprocess& tail) {
    tail.Kill(SIGINT);
    const auto status = tail.Wait(10s);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(status->exited);
    EXPECT_EQ(status->code, 0) << tail.stderr_text();
    EXPECT_EQ(tail.stderr_text(), "");
  }
};

TEST_F(TailTest, ProducerOps_EveryLineInTheDesignFormatEveryOpOnce) {
  auto tail = StartTail({"--level=trace"});
  const ProducerRun p = Produce({"--ops", "100"});
  const uint64_t launches = p.done.at("launches");
  ASSERT_TRUE(WaitForLines(*tail, "COMPLETE", launches)) << tail->stdout_text();
  Interrupt(*tail);
  std::map<std::string, std::set<uint64_t>> ids;  // by kind
  for (const std::string& line : SplitLines(tail->stdout_text())) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, kOpLine)) << "[" << line << "]";
    EXPECT_TRUE(ids[m[1]].insert(std::stoull(m[3])).second) << "twice: " << line;
  }
  EXPECT_EQ(ids["LAUNCH"].size(), launches);
  EXPECT_EQ(ids["COMPLETE"], ids["LAUNCH"]) << "each op launched and completed once";
  EXPECT_EQ(tail->stdout_text().find('\x1b'), std::string::npos) << "no colours into a pipe";
}

TEST_F(TailTest, Verbose_PidTagDurationAndSource) {
  auto tail = StartTail({"-v"});
  const ProducerRun p = Produce({"--ops", "20"});
  ASSERT_TRUE(WaitForLines(*tail, "COMPLETE", p.done.at("launches")));
  Interrupt(*tail);
  const std::string pid = "pid=" + std::to_string(p.producer->pid());
  const std::regex verbose(
      R"(\[OP\] (LAUNCH|COMPLETE) (\S+) \[id=\d+\] target=\S+ pid=\d+( tag=\S+)?( dur=[0-9.]+(ns|µs|ms|s))?( src=\S+)?)");
  size_t durations = 0;
  for (const std::string& line : SplitLines(tail->stdout_text())) {
    EXPECT_TRUE(std::regex_match(line, verbose)) << line;
    EXPECT_NE(line.find(pid), std::string::npos) << line;
    const bool complete = line.find("COMPLETE") != std::string::npos;
    const bool has_dur = line.find(" dur=") != std::string::npos;
    EXPECT_TRUE(complete || !has_dur) << "only COMPLETE has a duration: " << line;
    durations += has_dur;
    if (line.find(" outer ") != std::string::npos) {
      EXPECT_NE(line.find(" tag=shape_"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(durations, p.done.at("launches")) << "every COMPLETE whose LAUNCH was seen";
}

TEST_F(TailTest, Json_OneObjectPerLineMatchingTheProducer) {
  auto tail = StartTail({"--json"});
  const ProducerRun p = Produce({"--ops", "30"}, "json-tail");
  ASSERT_TRUE(WaitForLines(*tail, "\"complete\"", p.done.at("launches")));
  Interrupt(*tail);
  std::map<std::string, size_t> kinds;
  for (const std::string& line : SplitLines(tail->stdout_text())) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["type"], "event");
    EXPECT_EQ(j["pid"], p.producer->pid());
    EXPECT_EQ(j["label"], "json-tail");
    EXPECT_EQ(j["session_id"], p.session_id);
    ++kinds[j["kind"]];
  }
  EXPECT_EQ(kinds["launch"], p.done.at("launches"));
  EXPECT_EQ(kinds["complete"], p.done.at("launches"));
}

TEST_F(TailTest, NameAndTargetFilters_OnlyMatchingOps) {
  auto tail = StartTail({"--name", "^inner$", "--target", "gpu", "--device", "1"});
  const ProducerRun p = Produce({"--ops", "25"});
  ASSERT_TRUE(WaitForLines(*tail, "COMPLETE", 25));
  Interrupt(*tail);
  for (const std::string& line : SplitLines(tail->stdout_text())) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, kOpLine)) << line;
    EXPECT_EQ(m[2], "inner");
    EXPECT_NE(line.find("target=gpu:1"), std::string::npos) << line;
  }
  EXPECT_EQ(SplitLines(tail->stdout_text()).size(), 50u);
}

TEST_F(TailTest, MinDuration_ExactlyTheStoredSpansThatLong) {
  auto tail = StartTail({"--min-duration", "4ms"});
  const ProducerRun p = Produce({"--sleeps"});  // 2 ms and 5 ms ops
  // What the daemon stored: the spans of at least 4 ms (a loaded machine may
  // stretch a 2 ms op that far, so ask rather than assume).
  std::set<uint64_t> long_ids;
  for (const auto& span : JsonMember(Cli({"ops", std::to_string(p.session_id), "--limit", "0",
                                          "--min-duration", "4ms", "--json"})
                                         .out,
                                     "spans")) {
    long_ids.insert(span["op_id"].get<uint64_t>());
  }
  ASSERT_GE(long_ids.size(), 10u) << "the ten 5 ms ops at least";
  ASSERT_TRUE(WaitForLines(*tail, "[SPAN]", long_ids.size()));
  Interrupt(*tail);
  const std::regex span(R"(\[SPAN\] sleep_[25]ms \[id=(\d+)\] target=\S+ dur=[0-9.]+ms)");
  std::set<uint64_t> tailed_ids;
  for (const std::string& line : SplitLines(tail->stdout_text())) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, span)) << line;
    tailed_ids.insert(std::stoull(m[1]));
  }
  EXPECT_EQ(tailed_ids, long_ids);
}

TEST_F(TailTest, LevelTrace_RaisesAProducerWhileTheTailLives) {
  auto producer =
      StartTestProducer({"--forever"}, {{"OPTRACE_LEVEL", ""}});  // asks for nothing: off
  ASSERT_TRUE(producer->WaitForLine("ready", 20s).has_value());
  const auto pid = static_cast<uint32_t>(producer->pid());
  auto live_level = [&] {
    const CliRun run = Cli({"level", "--json"});
    if (run.exit_code != 0) return std::string("?");
    for (const auto& p : JsonMember(run.out, "producers")) {
      if (p["pid"] == pid) return p["live"].get<std::string>();
    }
    return std::string("?");
  };
  ASSERT_TRUE(WaitUntil([&] { return live_level() == "off"; }, 10s));
  auto tail = StartTail({"--level=trace", "--pid", std::to_string(pid)});
  EXPECT_TRUE(WaitUntil([&] { return live_level() == "trace"; }, 10s));
  EXPECT_TRUE(WaitForLines(*tail, "[OP] LAUNCH inner", 1)) << "traced while the tail lives";
  Interrupt(*tail);
  EXPECT_TRUE(WaitUntil([&] { return live_level() == "off"; }, 15s)) << "restored after Ctrl-C";
  producer->Kill(SIGTERM);
  producer->Wait(20s);
}

TEST_F(TailTest, SigTerm_EndsCleanly) {
  auto tail = StartTail({});
  tail->Kill(SIGTERM);
  const auto status = tail->Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0);
  EXPECT_TRUE(WaitForTails(0));
}

}  // namespace
}  // namespace optrace::cli::testing
