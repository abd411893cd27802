// Zero-code tracing end to end: an NVTX-annotated program that was never
// linked with optrace, run with NVTX_INJECTION64_PATH=liboptrace_nvtx.so
// under a real optraced; what the daemon stored is read back from its
// SQLite file.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "optrace/abi.h"
#include "producer_report.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::Instant;
using daemon::SessionState;
using daemon::Span;
using daemon::SpanStatus;
using testing::DaemonProcess;
using testing::ParseKeyValueLines;
using testing::StoredSession;
using testing::Subprocess;
using testing::WaitForStoredSession;

class NvtxInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(daemon_.Start()) << daemon_.log(); }

  // Runs the NVTX program with `args` under the injection library at level
  // trace; returns it once it exited 0.
  std::unique_ptr<Subprocess> RunProgram(std::vector<std::string> args,
                                         std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {NVTX_TEST_PROGRAM};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace("NVTX_INJECTION64_PATH", OPTRACE_NVTX_LIBRARY);
    env.emplace("OPTRACE_LEVEL", "trace");
    auto program = std::make_unique<Subprocess>(argv, env);
    const auto status = program->Wait(30s);
    EXPECT_TRUE(status && status->exited && status->code == 0) << program->stderr_text();
    return program;
  }

  // The session of `pid` once the daemon stored its end.
  std::optional<StoredSession> WaitForSession(uint32_t pid) {
    return WaitForStoredSession(daemon_.db_path(), pid, 20s);
  }

  testing::TempFolder folder_;
  DaemonProcess daemon_{folder_.path()};
};

TEST_F(NvtxInjectionTest, Scenario_EveryRangeASpanWithNameNestingPairingAndStatus) {
  const auto program = RunProgram({"scenario"});
  const auto printed = ParseKeyValueLines(program->stdout_text());
  ASSERT_EQ(printed.count("main_tid"), 1u) << program->stdout_text();
  const auto session = WaitForSession(static_cast<uint32_t>(program->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  const StoredSession& s = *session;
  EXPECT_EQ(s.record.state, SessionState::kExited);
  const auto main_tid = static_cast<uint32_t>(std::stoul(printed.at("main_tid")));
  const auto worker_tid = static_cast<uint32_t>(std::stoul(printed.at("worker_tid")));

  // nvtxRangePush/Pop: scoped ops, nested on their thread, CPU placement.
  EXPECT_EQ(printed.at("push_levels"), "0,1,2");
  EXPECT_EQ(printed.at("pop_levels"), "2,1,0");
  const Span& outer = s.SpanNamed("outer");
  const Span& middle = s.SpanNamed("middle");
  const Span& inner = s.SpanNamed("inner");
  for (const Span* span : {&outer, &middle, &inner}) {
    EXPECT_EQ(span->status, SpanStatus::kOk);
    EXPECT_EQ(span->launch_tid, main_tid);
    EXPECT_EQ(span->complete_tid, main_tid);
    EXPECT_EQ(span->target, static_cast<uint8_t>(abi::TargetKind::kCpu));
  }
  EXPECT_EQ(outer.parent_op_id, 0u);
  EXPECT_EQ(middle.parent_op_id, outer.op_id);
  EXPECT_EQ(inner.parent_op_id, middle.op_id);
  EXPECT_GE(inner.start_ns, middle.start_ns);
  EXPECT_LE(inner.duration_ns, middle.duration_ns);
  EXPECT_LE(middle.duration_ns, outer.duration_ns);

  // Categories: named, or shown by number.
  EXPECT_EQ(s.Text(s.SpanNamed("categorized").tag), "compute");
  EXPECT_EQ(s.SpanNamed("categorized").parent_op_id, outer.op_id);
  EXPECT_EQ(s.Text(s.SpanNamed("numbered_category").tag), "9");
  EXPECT_EQ(outer.tag, 0u);

  // Wide messages become UTF-8; huge ones keep their first 511 bytes (the
  // 512th would split a character).
  EXPECT_EQ(s.SpanNamed("unicode_\u00fcn\u00ef_\u6f14\u7b97_\u2713").status, SpanStatus::kOk);
  EXPECT_EQ(s.SpanNamed("long_" + std::string(506, 'a')).status, SpanStatus::kOk);

  // Marks: instants, parented to the range open on their thread.
  const auto checkpoint = s.InstantsNamed("checkpoint");
  ASSERT_EQ(checkpoint.size(), 1u);
  EXPECT_EQ(checkpoint[0]->parent_op_id, outer.op_id);
  EXPECT_EQ(checkpoint[0]->kind, static_cast<uint8_t>(abi::EventKind::kMark));
  EXPECT_EQ(s.InstantsNamed("mark_\u00fc").size(), 1u);

  // nvtxRangeStart/End: asynchronous ops, paired across threads.
  const Span& main_to_worker = s.SpanNamed("async_main_to_worker");
  EXPECT_EQ(main_to_worker.status, SpanStatus::kOk);
  EXPECT_EQ(main_to_worker.launch_tid, main_tid);
  EXPECT_EQ(main_to_worker.complete_tid, worker_tid);
  const Span& worker_to_main = s.SpanNamed("async_worker_to_main");
  EXPECT_EQ(worker_to_main.status, SpanStatus::kOk);
  EXPECT_EQ(worker_to_main.launch_tid, worker_tid);
  EXPECT_EQ(worker_to_main.complete_tid, main_tid);
  EXPECT_EQ(s.Text(worker_to_main.tag), "compute");
  EXPECT_EQ(s.SpanNamed("worker_inner").parent_op_id, s.SpanNamed("worker_outer").op_id);
  EXPECT_EQ(s.SpanNamed("worker_outer").parent_op_id, 0u);

  // Domains: their own push levels, "domain/category" tags, registered
  // strings; the C++ API through NVTX's domain table.
  EXPECT_EQ(printed.at("domain_level"), "0");
  const Span& default_open = s.SpanNamed("default_domain_open");
  const Span& read_batch = s.SpanNamed("read_batch");
  EXPECT_EQ(s.Text(read_batch.tag), "mylib/io");
  EXPECT_EQ(read_batch.parent_op_id, default_open.op_id);
  const Span& registered = s.SpanNamed("registered_op");
  EXPECT_EQ(s.Text(registered.tag), "mylib");
  EXPECT_EQ(registered.status, SpanStatus::kOk);
  ASSERT_EQ(s.InstantsNamed("registered_op").size(), 1u);
  EXPECT_EQ(s.InstantsNamed("registered_op")[0]->parent_op_id, registered.op_id);
  EXPECT_EQ(s.Text(s.SpanNamed("cxx_scoped").tag), "cxx_domain");
  EXPECT_EQ(s.SpanNamed("cxx_scoped").status, SpanStatus::kOk);
  ASSERT_EQ(s.InstantsNamed("cxx_mark").size(), 1u);
  EXPECT_EQ(s.InstantsNamed("cxx_mark")[0]->parent_op_id, s.SpanNamed("cxx_scoped").op_id);

  // Ranges still open at exit: incomplete, the last thing it was doing.
  const Span& never_outer = s.SpanNamed("never_closed_outer");
  const Span& never_inner = s.SpanNamed("never_closed_inner");
  EXPECT_EQ(never_outer.status, SpanStatus::kIncomplete);
  EXPECT_EQ(never_inner.status, SpanStatus::kIncomplete);
  EXPECT_EQ(never_inner.parent_op_id, never_outer.op_id);
  EXPECT_EQ(s.SpanNamed("never_ended_async").status, SpanStatus::kIncomplete);
  EXPECT_EQ(s.record.open_ops, 3u);

  // Every other range paired; what was cut or refused is counted.
  size_t ok = 0;
  for (const Span& span : s.spans) ok += span.status == SpanStatus::kOk ? 1 : 0;
  EXPECT_EQ(ok, s.spans.size() - 3);
  EXPECT_EQ(printed.at("unbalanced_pop"), "-1");
  ASSERT_EQ(s.InstantsNamed("optrace.nvtx.unbalanced_pops").size(), 1u);
  EXPECT_EQ(s.InstantsNamed("optrace.nvtx.unbalanced_pops")[0]->value, 1);
  ASSERT_EQ(s.InstantsNamed("optrace.nvtx.messages_truncated").size(), 1u);
  EXPECT_EQ(s.InstantsNamed("optrace.nvtx.messages_truncated")[0]->kind,
            static_cast<uint8_t>(abi::EventKind::kCounter));
}

TEST_F(NvtxInjectionTest, MoreDistinctNamesThanCap_LaterNamesGenericAndCounted) {
  const auto program = RunProgram({"dynamic_names", "100"}, {{"OPTRACE_NVTX_MAX_NAMES", "40"}});
  const auto session = WaitForSession(static_cast<uint32_t>(program->pid()));
  ASSERT_TRUE(session.has_value()) << daemon_.log();
  size_t own_name = 0;
  size_t generic = 0;
  for (const Span& span : session->spans) {
    EXPECT_EQ(span.status, SpanStatus::kOk);
    const std::string name = session->Text(span.name);
    if (name.rfind("dyn_", 0) == 0) ++own_name;
    if (name == "<too many names>") ++generic;
  }
  // "<unnamed>" takes one of the 40 places.
  EXPECT_EQ(own_name, 39u);
  EXPECT_EQ(generic, 61u);
  int64_t counted = 0;
  for (const Instant* i : session->InstantsNamed("optrace.nvtx.names_over_cap")) {
    counted = std::max(counted, i->value);
  }
  EXPECT_EQ(counted, 32) << "sampled at each power of two: 1, 2, ..., 32 of 61";
  EXPECT_EQ(session->record.names_capped, 61u) << "every generic name, in the session's drops";
}

TEST_F(NvtxInjectionTest, LevelOff_ProgramRunsAndNoSpanIsStored) {
  const auto program = RunProgram({"scenario"}, {{"OPTRACE_LEVEL", "off"}});
  EXPECT_NE(program->stdout_text().find("done"), std::string::npos);
  EXPECT_EQ(ParseKeyValueLines(program->stdout_text()).at("push_levels"), "0,1,2")
      << "levels are tracked even when nothing is traced";
  const auto session = WaitForSession(static_cast<uint32_t>(program->pid()));
  if (session) {
    EXPECT_TRUE(session->spans.empty());
  }
}

TEST_F(NvtxInjectionTest, WrongInjectionPath_ProgramRunsUntraced) {
  const auto program =
      RunProgram({"scenario"}, {{"NVTX_INJECTION64_PATH", folder_.path() + "/missing.so"}});
  EXPECT_NE(program->stdout_text().find("done"), std::string::npos);
  // NVTX without a tool does not track push levels.
  EXPECT_NE(ParseKeyValueLines(program->stdout_text()).at("push_levels"), "0,1,2");
}

TEST_F(NvtxInjectionTest, OptraceRunNvtx_UnmodifiedProgram_TracedEndToEnd) {
  // What a user types: the CLI finds the injection library and sets it.
  Subprocess run({OPTRACE_CLI, "--socket", daemon_.socket_path(), "run", "--nvtx", "--",
                  NVTX_TEST_PROGRAM, "scenario"},
                 {{"OPTRACE_NVTX_LIBRARY", OPTRACE_NVTX_LIBRARY}, {"NVTX_INJECTION64_PATH", ""}});
  const auto status = run.Wait(60s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 0) << run.stderr_text();
  EXPECT_NE(run.stderr_text().find("session"), std::string::npos) << run.stderr_text();
  const auto printed = ParseKeyValueLines(run.stdout_text());
  EXPECT_EQ(printed.at("push_levels"), "0,1,2") << "the injection library was loaded";
}

// Issue 26: `optrace run --nvtx --step-range NAME` makes the pushed ranges
// of that name the session's steps, numbered in order, each with the ops
// inside it; without it the same program has no steps.
TEST_F(NvtxInjectionTest, OptraceRunNvtxStepRange_NamedRangesAreTheSteps) {
  auto run_steps = [&](std::vector<std::string> range_args) {
    std::vector<std::string> argv = {OPTRACE_CLI, "--socket", daemon_.socket_path(), "run",
                                     "--nvtx"};
    argv.insert(argv.end(), range_args.begin(), range_args.end());
    argv.insert(argv.end(), {"--", NVTX_TEST_PROGRAM, "steps", "4"});
    Subprocess run(argv, {{"OPTRACE_NVTX_LIBRARY", OPTRACE_NVTX_LIBRARY}});
    const auto status = run.Wait(60s);
    EXPECT_TRUE(status.has_value() && status->code == 0) << run.stderr_text();
    std::smatch id;
    const std::string err = run.stderr_text();
    EXPECT_TRUE(std::regex_search(err, id, std::regex("session (\\d+)"))) << err;
    return id.size() > 1 ? id[1].str() : std::string("0");
  };
  auto cli = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {OPTRACE_CLI, "--socket", daemon_.socket_path()});
    Subprocess query(args);
    const auto status = query.Wait(30s);
    EXPECT_TRUE(status.has_value() && status->code == 0) << query.stderr_text();
    return nlohmann::json::parse(query.stdout_text(), nullptr, false);
  };

  const std::string marked = run_steps({"--step-range", "train_step"});
  const nlohmann::json steps = cli({"steps", marked, "--json"});
  EXPECT_EQ(steps["source"], "range") << steps.dump();
  ASSERT_EQ(steps["steps"].size(), 4u) << steps.dump();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(steps["steps"][i]["step"], i + 1);
    EXPECT_EQ(steps["steps"][i]["ops"], 2) << "forward and backward";
  }
  const nlohmann::json tree = cli({"tree", marked, "--step", "2", "--min-share", "0", "--json"});
  ASSERT_EQ(tree["nodes"].size(), 3u) << tree.dump();
  EXPECT_EQ(tree["nodes"][0]["name"], "train_step");
  EXPECT_EQ(tree["nodes"][0]["count"], 1);
  EXPECT_EQ(tree["spans"], 3);

  const std::string plain = run_steps({});
  EXPECT_EQ(cli({"steps", plain, "--json"})["source"], "none");
}

TEST_F(NvtxInjectionTest, OptraceRunNvtx_LibraryMissing_RefusedWithExit2) {
  Subprocess run(
      {OPTRACE_CLI, "--socket", daemon_.socket_path(), "run", "--nvtx", "--", "/bin/true"},
      {{"OPTRACE_NVTX_LIBRARY", folder_.path() + "/missing.so"}});
  const auto status = run.Wait(30s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(run.stderr_text().find("liboptrace_nvtx.so was not found"), std::string::npos)
      << run.stderr_text();
}

}  // namespace
}  // namespace optrace
