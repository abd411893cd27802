// GetSteps and ExplainStep over a real database: explicit steps, steps of
// PyTorch's profiler and optimizer, the ops of each step by start time,
// a slow step explained, steps whose pages were trimmed listed from the
// store's step records, and bad requests.
#include "query/session_steps.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api_test_store.h"
#include "optrace/abi.h"
#include "optrace/step_range_mark.h"
#include "query/call_tree.h"
#include "storage/page_trimmer.h"
#include "storage/sqlite_transaction.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;
constexpr int64_t kT0 = 1'700'000'000'000'000'000;

// Builds a session's spans: ops with ids in start order.
class SpanScript {
 public:
  explicit SpanScript(ApiTestStore& store) : store_(store) {}

  // An OK span of `name` from `start` (ns after kT0) lasting `duration`, of
  // which `children` in its children; returns its op id.
  uint64_t Op(const std::string& name, int64_t start, uint64_t duration, uint64_t children = 0) {
    Span s = testing::MakeSpan(++next_id_, kT0 + start, store_.Intern(name), duration);
    s.children_ns = children;
    spans_.push_back(s);
    return s.op_id;
  }

  // One training step at `start` of 200 ns: forward 100, backward 50 and,
  // when `slow_op` is given, that op for `slow_ns` more.
  void Step(const std::string& step_name, int64_t start, uint64_t slow_ns = 0,
            const std::string& slow_op = "") {
    Op(step_name, start, 200 + slow_ns, 150 + slow_ns);
    Op("forward", start + 10, 100);
    Op("backward", start + 120, 50);
    if (slow_ns != 0) Op(slow_op, start + 180, slow_ns);
  }

  std::vector<Span>& spans() { return spans_; }

 private:
  ApiTestStore& store_;
  std::vector<Span> spans_;
  uint64_t next_id_ = 0;
};

v1::GetStepsResponse Steps(ApiTestStore& store, v1::GetStepsRequest request = {}) {
  request.set_session_id(kSession);
  v1::GetStepsResponse response;
  const Status status = GetSteps(store.reader(), request, &response);
  EXPECT_TRUE(status.ok()) << status.message();
  return response;
}

Status Explain(ApiTestStore& store, v1::ExplainStepRequest request,
               v1::ExplainStepResponse* response) {
  request.set_session_id(kSession);
  return ExplainStep(store.reader(), request, response);
}

// Eight explicit steps 1000 ns apart; step 6 runs "slow_only" for 300 ns.
class ExplicitStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SpanScript script(store_);
    script.Op("setup", -500, 100);  // before the first step: in none
    for (int i = 0; i < 8; ++i) {
      script.Step("optrace.step", i * 1000, i == 5 ? 300 : 0, "slow_only");
    }
    store_.AddSession(MakeSession(kSession), script.spans());
  }
  ApiTestStore store_;
};

TEST_F(ExplicitStepsTest, GetSteps_NumberedFromOne_OpsByStart_SlowStepMarked) {
  const v1::GetStepsResponse steps = Steps(store_);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_EXPLICIT);
  ASSERT_EQ(steps.steps_size(), 8);
  EXPECT_EQ(steps.steps_total(), 8u);
  EXPECT_EQ(steps.slow_steps(), 1u);
  for (int i = 0; i < 8; ++i) {
    const v1::Step& step = steps.steps(i);
    EXPECT_EQ(step.number(), static_cast<uint64_t>(i + 1));
    EXPECT_EQ(step.start_unix_ns(), kT0 + i * 1000);
    EXPECT_EQ(step.duration_ns(), i == 5 ? 500u : 200u);
    EXPECT_EQ(step.ops(), i == 5 ? 3u : 2u) << i;
    EXPECT_EQ(step.top_op(), i == 5 ? "slow_only" : "forward") << i;
    EXPECT_EQ(step.slow(), i == 5) << i;
    EXPECT_EQ(step.warmup(), i < 3) << i;
  }
  EXPECT_EQ(steps.steps(5).baseline_ns(), 200u);
  // Percentiles of steps 4..8: 200 200 500 200 200.
  EXPECT_EQ(steps.p50_ns(), 200u);
  EXPECT_EQ(steps.p99_ns(), 500u);
  EXPECT_EQ(steps.rules().window(), 20u);
}

TEST_F(ExplicitStepsTest, GetSteps_Limit_TheLastStepsListedAllCounted) {
  v1::GetStepsRequest request;
  request.set_limit(2);
  const v1::GetStepsResponse steps = Steps(store_, request);
  ASSERT_EQ(steps.steps_size(), 2);
  EXPECT_EQ(steps.steps(0).number(), 7u);
  EXPECT_EQ(steps.steps_total(), 8u);
  EXPECT_EQ(steps.slow_steps(), 1u);
}

TEST_F(ExplicitStepsTest, ExplainStep_SlowStep_NamesTheOpOnlyInIt) {
  v1::ExplainStepRequest request;
  request.set_step(6);
  v1::ExplainStepResponse why;
  const Status status = Explain(store_, request, &why);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(why.duration_ns(), 500u);
  EXPECT_EQ(why.baseline_ns(), 200u);
  EXPECT_EQ(why.extra_ns(), 300u);
  EXPECT_TRUE(why.slow());
  // Neighbours that are neither slow nor warm-up, nearest first.
  EXPECT_EQ(std::vector<uint64_t>(why.baseline_steps().begin(), why.baseline_steps().end()),
            (std::vector<uint64_t>{5, 7, 4, 8}));
  ASSERT_EQ(why.ops_size(), 1);
  EXPECT_EQ(why.ops(0).name(), "slow_only");
  EXPECT_EQ(why.ops(0).extra_ns(), 300u);
  EXPECT_TRUE(why.ops(0).only_in_step());
  EXPECT_DOUBLE_EQ(why.ops(0).share(), 1.0);
  EXPECT_DOUBLE_EQ(why.ops(0).cumulative_share(), 1.0);
}

TEST_F(ExplicitStepsTest, ExplainStep_BaselineStep_ComparedWithThatOne) {
  v1::ExplainStepRequest request;
  request.set_step(6);
  request.set_baseline_step(1);
  request.set_has_baseline_step(true);
  v1::ExplainStepResponse why;
  ASSERT_TRUE(Explain(store_, request, &why).ok());
  ASSERT_EQ(why.baseline_steps_size(), 1);
  EXPECT_EQ(why.baseline_steps(0), 1u);
  EXPECT_EQ(why.ops(0).name(), "slow_only");
}

TEST_F(ExplicitStepsTest, ExplainStep_BadSteps_NotFoundOrInvalidArgument) {
  v1::ExplainStepResponse why;
  v1::ExplainStepRequest unknown;
  unknown.set_step(99);
  const Status a = Explain(store_, unknown, &why);
  EXPECT_EQ(a.code(), Status::Code::kNotFound);
  EXPECT_NE(a.message().find("no step 99"), std::string::npos) << a.message();
  v1::ExplainStepRequest itself;
  itself.set_step(6);
  itself.set_baseline_step(6);
  itself.set_has_baseline_step(true);
  EXPECT_EQ(Explain(store_, itself, &why).code(), Status::Code::kInvalidArgument);
  v1::ExplainStepRequest bad_rules;
  bad_rules.set_step(6);
  bad_rules.mutable_rules()->set_slow_factor(0.1);
  EXPECT_EQ(Explain(store_, bad_rules, &why).code(), Status::Code::kInvalidArgument);
}

TEST_F(ExplicitStepsTest, OpStoredLate_CountedInItsStepOnceWithItsOp) {
  // A long op of step 1 stored after every other span: its page comes
  // last, after step 8's, and its self time joins forward's in step 1.
  Span late = testing::MakeSpan(1000, kT0 + 50, store_.Intern("forward"), 150);
  store_.AddSpans(kSession, {late});
  const v1::GetStepsResponse steps = Steps(store_);
  ASSERT_EQ(steps.steps_size(), 8);
  EXPECT_EQ(steps.steps(0).ops(), 3u);
  EXPECT_EQ(steps.steps(0).top_op(), "forward");
  EXPECT_EQ(steps.steps(0).top_op_self_ns(), 250u);
  EXPECT_EQ(steps.steps(1).ops(), 2u);
}

// A counter sample of `name` valued `value` under op `parent`.
Instant CounterUnder(StringId name, uint64_t parent, int64_t ts, int64_t value) {
  Instant counter;
  counter.ts_ns = ts;
  counter.parent_op_id = parent;
  counter.value = value;
  counter.name = name;
  counter.kind = static_cast<uint8_t>(abi::EventKind::kCounter);
  counter.level = static_cast<uint8_t>(abi::LevelValue::kTrace);
  return counter;
}

// Trims the pages of `session` whose newest span began before
// `drop_before_ns`, as the rolling window does (PageTrimmer), once what
// was added is committed.
void TrimPagesBefore(ApiTestStore& store, SessionId session, int64_t drop_before_ns) {
  store.reader();  // flushes the store
  Result<std::unique_ptr<SqliteConnection>> db =
      SqliteConnection::Open(store.folder() + "/trace.db", SqliteOpenMode::kReadWriteCreate, 1000);
  ASSERT_TRUE(db.ok()) << db.status().message();
  Result<std::unique_ptr<PageTrimmer>> trimmer = PageTrimmer::Create(*db.value());
  ASSERT_TRUE(trimmer.ok()) << trimmer.status().message();
  Result<SessionExtent> extent = trimmer.value()->Extent(session);
  ASSERT_TRUE(extent.ok());
  Result<std::vector<PageExtent>> pages =
      trimmer.value()->NextToTrim(session, extent->page_bytes, extent->newest_start_ns,
                                  {.drop_before_ns = drop_before_ns}, 1000);
  ASSERT_TRUE(pages.ok()) << pages.status().message();
  ASSERT_FALSE(pages->empty());
  Result<SqliteTransaction> transaction =
      SqliteTransaction::Begin(*db.value(), SqliteTransaction::Kind::kImmediate);
  ASSERT_TRUE(transaction.ok());
  ASSERT_TRUE(trimmer.value()->Trim(session, pages.value()).ok());
  ASSERT_TRUE(transaction->Commit().ok());
}

// Eight explicit steps 1000 ns apart, one batch (one page) each, step 6
// running "slow_only" for 300 ns; then the window trims the pages of steps
// 1 to 3 (the store recorded every step as it committed).
class TrimmedStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SpanScript script(store_);
    for (int i = 0; i < 8; ++i) {
      script.Step("optrace.step", i * 1000, i == 5 ? 300 : 0, "slow_only");
      if (i == 0) {
        store_.AddSession(MakeSession(kSession), std::move(script.spans()));
      } else {
        store_.AddSpans(kSession, std::move(script.spans()));
      }
      script.spans().clear();
    }
    ASSERT_NO_FATAL_FAILURE(TrimPagesBefore(store_, kSession, kT0 + 3000));
  }
  ApiTestStore store_;
};

TEST_F(TrimmedStepsTest, GetSteps_TrimmedStepsListedFromRecords_NumbersAndVerdictsKept) {
  const v1::GetStepsResponse steps = Steps(store_);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_EXPLICIT);
  ASSERT_EQ(steps.steps_size(), 8);
  EXPECT_EQ(steps.steps_total(), 8u);
  EXPECT_EQ(steps.steps_folded(), 0u);
  EXPECT_EQ(steps.slow_steps(), 1u);
  for (int i = 0; i < 8; ++i) {
    const v1::Step& step = steps.steps(i);
    EXPECT_EQ(step.number(), static_cast<uint64_t>(i + 1)) << "numbered as before the trim";
    EXPECT_EQ(step.start_unix_ns(), kT0 + i * 1000);
    EXPECT_EQ(step.duration_ns(), i == 5 ? 500u : 200u);
    EXPECT_EQ(step.trimmed(), i < 3) << i;
    EXPECT_EQ(step.ops(), i < 3 ? 0u : i == 5 ? 3u : 2u) << i;
    EXPECT_EQ(step.top_op(), i < 3 ? "" : i == 5 ? "slow_only" : "forward") << i;
    EXPECT_EQ(step.warmup(), i < 3) << "the trimmed steps are still the warm-up";
    EXPECT_EQ(step.slow(), i == 5) << i;
  }
  // Percentiles of steps 4..8 (200 200 500 200 200), as without the trim.
  EXPECT_EQ(steps.p50_ns(), 200u);
  EXPECT_EQ(steps.p99_ns(), 500u);
}

TEST_F(TrimmedStepsTest, ExplainStep_TrimmedStep_FailedPreconditionSayingItsSpansWereTrimmed) {
  v1::ExplainStepRequest request;
  request.set_step(2);
  v1::ExplainStepResponse why;
  Status status = Explain(store_, request, &why);
  EXPECT_EQ(status.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(status.message().find("step 2 of session 1: its spans were trimmed by the rolling "
                                  "window"),
            std::string::npos)
      << status.message();
  request.set_step(6);
  request.set_baseline_step(1);
  request.set_has_baseline_step(true);
  status = Explain(store_, request, &why);
  EXPECT_EQ(status.code(), Status::Code::kFailedPrecondition) << "a trimmed baseline too";
}

TEST_F(TrimmedStepsTest, TreeOfATrimmedStep_FailedPreconditionOfAKeptStepItsOps) {
  v1::GetTreeRequest request;
  request.set_session_id(kSession);
  request.set_step(3);
  request.set_has_step(true);
  v1::GetTreeResponse tree;
  const Status trimmed = GetTree(store_.reader(), request, &tree);
  EXPECT_EQ(trimmed.code(), Status::Code::kFailedPrecondition) << trimmed.message();
  request.set_step(4);
  const Status kept = GetTree(store_.reader(), request, &tree);
  ASSERT_TRUE(kept.ok()) << kept.message();
  EXPECT_EQ(tree.spans(), 3u) << "step 4's own span, forward and backward";
}

TEST_F(TrimmedStepsTest, ExplainStep_SlowStep_ExplainedFromStepsWithSpans) {
  v1::ExplainStepRequest request;
  request.set_step(6);
  v1::ExplainStepResponse why;
  const Status status = Explain(store_, request, &why);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(why.extra_ns(), 300u);
  ASSERT_GE(why.ops_size(), 1);
  EXPECT_EQ(why.ops(0).name(), "slow_only");
  for (uint64_t baseline : why.baseline_steps()) {
    EXPECT_GT(baseline, 3u) << "trimmed steps are no baseline";
  }
}

TEST(SessionStepsTest, ProfilerStepsAllTrimmed_ListedFromRecordsOverOptimizerSteps) {
  ApiTestStore store;
  SpanScript script(store);
  const StringId profiler = store.Intern("ProfilerStep#");
  // Two profiler steps (numbered 0 and 1), each in its own batch, then a
  // batch of optimizer ranges alone: once the profiler steps' pages are
  // trimmed, the spans hold optimizer steps only.
  for (int i = 0; i < 2; ++i) {
    const uint64_t id = script.Op("ProfilerStep#", i * 1000, 900, 300);
    script.Op("aten::conv2d", i * 1000 + 10, 300);
    std::vector<Instant> counter = {CounterUnder(profiler, id, kT0 + i * 1000 + 1, i)};
    store.AddSession(MakeSession(kSession), std::move(script.spans()), std::move(counter));
    script.spans().clear();
  }
  script.Op("Optimizer.step#SGD.step", 5000, 100);
  script.Op("Optimizer.step#SGD.step", 6000, 100);
  store.AddSpans(kSession, std::move(script.spans()));
  ASSERT_NO_FATAL_FAILURE(TrimPagesBefore(store, kSession, kT0 + 2000));
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_PROFILER) << "profiler steps win, trimmed or not";
  ASSERT_EQ(steps.steps_size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(steps.steps(i).number(), static_cast<uint64_t>(i));
    EXPECT_EQ(steps.steps(i).duration_ns(), 900u);
    EXPECT_TRUE(steps.steps(i).trimmed());
  }
}

TEST(SessionStepsTest, NoSteps_EmptyListAndExplainNotFound) {
  ApiTestStore store;
  SpanScript script(store);
  script.Op("matmul", 0, 100);
  store.AddSession(MakeSession(kSession), script.spans());
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_UNSPECIFIED);
  EXPECT_EQ(steps.steps_size(), 0);
  v1::ExplainStepRequest request;
  request.set_step(1);
  v1::ExplainStepResponse why;
  const Status status = Explain(store, request, &why);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_NE(status.message().find("has no steps"), std::string::npos);
}

TEST(SessionStepsTest, OptimizerSteps_FirstOptimizerClosesSteps_SecondDoesNotSplit) {
  ApiTestStore store;
  SpanScript script(store);
  // Three iterations of 1000 ns: ops, then SGD's step, then Adam's step
  // (a second optimizer) closing the iteration 100 ns later.
  for (int i = 0; i < 3; ++i) {
    const int64_t t = i * 1000;
    script.Op("aten::mm", t + 100, 300);
    script.Op("Optimizer.step#SGD.step", t + 500, 200, 150);
    script.Op("aten::add_", t + 550, 150);
    script.Op("Optimizer.step#Adam.step", t + 750, 100);
  }
  store.AddSession(MakeSession(kSession), script.spans());
  v1::GetStepsRequest request;
  request.mutable_rules()->set_warmup_none(true);
  const v1::GetStepsResponse steps = Steps(store, request);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_OPTIMIZER);
  ASSERT_EQ(steps.steps_size(), 3);
  // Step 1 opens at the first op (100) and ends with SGD's first step (700).
  EXPECT_EQ(steps.steps(0).start_unix_ns(), kT0 + 100);
  EXPECT_EQ(steps.steps(0).duration_ns(), 600u);
  EXPECT_EQ(steps.steps(1).start_unix_ns(), kT0 + 700);
  EXPECT_EQ(steps.steps(1).duration_ns(), 1000u);
  // Step 1: mm, SGD.step, add_ (Adam's step began after SGD's ended).
  EXPECT_EQ(steps.steps(0).ops(), 3u);
  // Step 2: the first Adam step, then mm, SGD.step, add_.
  EXPECT_EQ(steps.steps(1).ops(), 4u);
  EXPECT_EQ(steps.steps(1).top_op(), "aten::mm");
}

TEST(SessionStepsTest, ProfilerSteps_NumberedByTheirCounter) {
  ApiTestStore store;
  SpanScript script(store);
  std::vector<Instant> instants;
  const StringId profiler = store.Intern("ProfilerStep#");
  for (int i = 0; i < 4; ++i) {
    const uint64_t id = script.Op("ProfilerStep#", i * 1000, 900, 300);
    script.Op("aten::conv2d", i * 1000 + 10, 300);
    instants.push_back(CounterUnder(profiler, id, kT0 + i * 1000 + 1, 10 + i));
  }
  store.AddSession(MakeSession(kSession), script.spans(), instants);
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_PROFILER);
  ASSERT_EQ(steps.steps_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(steps.steps(i).number(), static_cast<uint64_t>(10 + i));
    EXPECT_EQ(steps.steps(i).ops(), 1u);
    EXPECT_EQ(steps.steps(i).top_op(), "aten::conv2d");
  }
}

// Ranges marked as steps (an optrace.step_range counter under each, as
// liboptrace_nvtx.so writes under --step-range): numbered by the counter,
// winning over ProfilerStep ranges; a range of the same name without the
// mark is an op, and so is a mark's range when explicit steps win.
TEST(SessionStepsTest, MarkedRanges_StepsNumberedByTheirMarkOverProfilerSteps) {
  ApiTestStore store;
  SpanScript script(store);
  std::vector<Instant> instants;
  const StringId mark = store.Intern(OPTRACE_STEP_RANGE_MARK_NAME);
  const StringId profiler = store.Intern("ProfilerStep#");
  script.Op("train_step", 0, 500);  // not marked: an op before the steps
  for (int i = 0; i < 3; ++i) {
    const int64_t start = 1000 + i * 1000;
    const uint64_t range = script.Op("train_step", start, 900, 300);
    instants.push_back(CounterUnder(mark, range, kT0 + start + 1, 1 + i));
    const uint64_t profiled = script.Op("ProfilerStep#", start + 5, 800, 300);
    instants.push_back(CounterUnder(profiler, profiled, kT0 + start + 6, 50 + i));
    script.Op("forward", start + 10, 300);
  }
  store.AddSession(MakeSession(kSession), script.spans(), instants);
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_RANGE);
  ASSERT_EQ(steps.steps_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(steps.steps(i).number(), static_cast<uint64_t>(1 + i));
    EXPECT_EQ(steps.steps(i).start_unix_ns(), kT0 + 1000 + i * 1000);
    EXPECT_EQ(steps.steps(i).duration_ns(), 900u);
    EXPECT_EQ(steps.steps(i).ops(), 1u) << "forward (ProfilerStep# is a step kind, not an op)";
  }
}

TEST(SessionStepsTest, ExplicitAndMarkedRanges_ExplicitWin) {
  ApiTestStore store;
  SpanScript script(store);
  std::vector<Instant> instants;
  const StringId mark = store.Intern(OPTRACE_STEP_RANGE_MARK_NAME);
  for (int i = 0; i < 2; ++i) {
    script.Op("optrace.step", i * 1000, 900, 400);
    const uint64_t range = script.Op("train_step", i * 1000 + 10, 400);
    instants.push_back(CounterUnder(mark, range, kT0 + i * 1000 + 11, 1 + i));
  }
  store.AddSession(MakeSession(kSession), script.spans(), instants);
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_EXPLICIT);
  ASSERT_EQ(steps.steps_size(), 2);
  EXPECT_EQ(steps.steps(0).duration_ns(), 900u);
}

TEST(SessionStepsTest, ExplicitAndOptimizerSteps_ExplicitWin) {
  ApiTestStore store;
  SpanScript script(store);
  for (int i = 0; i < 2; ++i) {
    script.Op("optrace.step", i * 1000, 900, 400);
    script.Op("Optimizer.step#SGD.step", i * 1000 + 100, 200);
    script.Op("Optimizer.step#SGD.step", i * 1000 + 400, 200);
  }
  store.AddSession(MakeSession(kSession), script.spans());
  const v1::GetStepsResponse steps = Steps(store);
  EXPECT_EQ(steps.source(), v1::STEP_SOURCE_EXPLICIT);
  ASSERT_EQ(steps.steps_size(), 2);
  EXPECT_EQ(steps.steps(0).ops(), 2u);
}

TEST(SessionStepsTest, LimitPastTheMost_InvalidArgument) {
  ApiTestStore store;
  store.AddSession(MakeSession(kSession), {});
  v1::GetStepsRequest request;
  request.set_session_id(kSession);
  request.set_limit(kMaxStepsListed + 1);
  v1::GetStepsResponse response;
  EXPECT_EQ(GetSteps(store.reader(), request, &response).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace optrace::daemon
