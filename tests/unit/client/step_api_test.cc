// Steps in this very process (client-lib/src/step_api.cc): optrace::Step,
// NextStep/FinishStep and the C API's steps and boundary state, read back
// from the process's own segment through the real reader.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "optrace/optrace.h"
#include "optrace/optrace.hpp"
#include "optrace/reader/string_table_reader.h"
#include "own_segment_test.h"

namespace optrace {
namespace {

constexpr auto kLaunch = static_cast<uint8_t>(abi::EventKind::kLaunch);
constexpr auto kComplete = static_cast<uint8_t>(abi::EventKind::kComplete);

class StepApiTest : public testing::OwnSegmentTest {};

// Runs `fn` on a fresh thread: fresh boundary state and scope stack.
template <typename F>
void OnNewThread(F fn) {
  std::thread(fn).join();
}

TEST_F(StepApiTest, CxxStep_OpsInside_StepIsTheirParentAndNamedAtTheCallerLine) {
  static OpSite inner_site("inside_step");
  uint64_t step_id = 0, inner_id = 0, after_parent_probe = 0;
  OnNewThread([&] {
    {
      Step step;
      step_id = step.id();
      ScopedOp inner(inner_site);
      inner_id = inner.id();
    }
    ScopedOp after(inner_site);
    after_parent_probe = after.id();
  });
  ASSERT_NE(step_id, 0u);
  const auto events = Drain();
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0].kind, kLaunch);
  EXPECT_EQ(events[0].op_id, step_id);
  EXPECT_EQ(Text(events[0].name_id), kStepName);
  EXPECT_EQ(events[0].tag_id, 0u);
  EXPECT_EQ(events[0].target_kind, static_cast<uint8_t>(abi::TargetKind::kCpu));
  EXPECT_NE(Text(events[0].srcloc_id).find("step_api_test.cc:"), std::string::npos);
  EXPECT_EQ(events[1].op_id, inner_id);
  EXPECT_EQ(events[1].parent_op_id, step_id);
  EXPECT_EQ(events[3].kind, kComplete);
  EXPECT_EQ(events[3].op_id, step_id);
  EXPECT_EQ(events[3].srcloc_id, events[0].srcloc_id);
  EXPECT_EQ(events[4].op_id, after_parent_probe);
  EXPECT_EQ(events[4].parent_op_id, 0u) << "the step's parent restored when it ended";
  EXPECT_EQ(stats_.Violations(), 0u);
}

TEST_F(StepApiTest, CStepBeginEnd_ScopedStepParentOfOpsAndEndZeroIgnored) {
  uint32_t name = 0;
  ASSERT_EQ(optrace_intern("c_op_in_step", 12, &name), 0);
  uint64_t step = 0, op = 0;
  OnNewThread([&] {
    step = optrace_step_begin();
    const optrace_op_desc d = {name, 0, 0, OPTRACE_TARGET_CPU, 0, 0};
    op = optrace_op_begin(&d, 0);
    optrace_op_end(&d, op, 0);
    EXPECT_EQ(optrace_step_end(step), 0);
    EXPECT_EQ(optrace_step_end(0), 0);
  });
  const auto events = Drain();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(Text(events[0].name_id), kStepName);
  EXPECT_EQ(events[0].srcloc_id, 0u) << "C steps carry no location";
  EXPECT_EQ(events[1].op_id, op);
  EXPECT_EQ(events[1].parent_op_id, step);
  EXPECT_EQ(events[3].kind, kComplete);
  EXPECT_EQ(events[3].op_id, step);
}

TEST_F(StepApiTest, Boundary_ThreeIterationsThenFinish_ThreeStepsEachEndedBeforeTheNext) {
  uint32_t name = 0;
  ASSERT_EQ(optrace_intern("loop_body", 9, &name), 0);
  const optrace_op_desc d = {name, 0, 0, OPTRACE_TARGET_CPU, 0, 0};
  OnNewThread([&] {
    EXPECT_EQ(optrace_step_finish(), 0) << "none open: nothing to end";
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(optrace_step(), 0);
      optrace_op_end(&d, optrace_op_begin(&d, OPTRACE_OP_SCOPED), 0);
    }
    EXPECT_EQ(optrace_step_finish(), 0);
    EXPECT_EQ(optrace_step_finish(), 0) << "ended already";
    optrace_op_end(&d, optrace_op_begin(&d, 0), 0);
  });
  const auto events = Drain();
  // Per iteration: step LAUNCH, body LAUNCH, body COMPLETE, step COMPLETE
  // (written by the next boundary call or the finish); then the last op.
  ASSERT_EQ(events.size(), 3u * 4 + 2);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    const abi::OpEvent* it = &events[4 * i];
    EXPECT_EQ(Text(it[0].name_id), kStepName);
    EXPECT_EQ(it[0].kind, kLaunch);
    EXPECT_EQ(it[0].parent_op_id, 0u);
    EXPECT_EQ(it[1].parent_op_id, it[0].op_id);
    EXPECT_EQ(it[3].kind, kComplete);
    EXPECT_EQ(it[3].op_id, it[0].op_id);
  }
  EXPECT_EQ(events[12].parent_op_id, 0u) << "no step open after the finish";
}

TEST_F(StepApiTest, Boundary_TwoThreads_EachEndsOnlyItsOwnStep) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 4; ++i) NextStep();
      FinishStep();
    });
  }
  for (auto& t : threads) t.join();
  // thread id -> the step it has open (0: none) and its steps ended
  std::map<uint32_t, std::pair<uint64_t, int>> by_thread;
  for (const abi::OpEvent& e : Drain()) {
    auto& [open, ended] = by_thread[e.thread_id];
    EXPECT_EQ(Text(e.name_id), kStepName);
    EXPECT_NE(Text(e.srcloc_id).find("step_api_test.cc:"), std::string::npos);
    if (e.kind == kLaunch) {
      EXPECT_EQ(open, 0u) << "a step begun while the thread's last one is open";
      open = e.op_id;
    } else {
      EXPECT_EQ(e.op_id, open) << "a step ended that the thread did not have open";
      open = 0;
      ++ended;
    }
  }
  ASSERT_EQ(by_thread.size(), 2u);
  for (const auto& [tid, state] : by_thread) {
    EXPECT_EQ(state.first, 0u);
    EXPECT_EQ(state.second, 4);
  }
}

TEST_F(StepApiTest, Boundary_LevelOffBeforeNextBoundary_OpenStepStillEndedNoNewStep) {
  uint64_t begun_at_off = 1;
  OnNewThread([&] {
    EXPECT_EQ(optrace_step(), 0);
    SetLevel(Level::kOff);
    EXPECT_EQ(optrace_step(), 0);  // ends the step begun at trace, begins none
    begun_at_off = optrace_step_begin();
    EXPECT_EQ(optrace_step_finish(), 0);
  });
  EXPECT_EQ(begun_at_off, 0u);
  const auto events = Drain();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, kLaunch);
  EXPECT_EQ(events[1].kind, kComplete);
  EXPECT_EQ(events[1].op_id, events[0].op_id);
}

// The contract in optrace.h: a scoped C op left open across the boundary
// stops being a parent; the next step's parent is the ended step's parent.
TEST_F(StepApiTest, Boundary_ScopedOpLeftOpenInsideStep_NextStepGetsTheEndedStepsParent) {
  uint32_t name = 0;
  ASSERT_EQ(optrace_intern("left_open", 9, &name), 0);
  const optrace_op_desc d = {name, 0, 0, OPTRACE_TARGET_CPU, 0, 0};
  uint64_t outer = 0, left_open = 0;
  OnNewThread([&] {
    outer = optrace_op_begin(&d, OPTRACE_OP_SCOPED);
    optrace_step();
    left_open = optrace_op_begin(&d, OPTRACE_OP_SCOPED);
    optrace_step();  // out of LIFO order: `left_open` is still open
    optrace_op_end(&d, left_open, 0);
    optrace_op_end(&d, optrace_op_begin(&d, 0), 0);
    optrace_step_finish();
    optrace_op_end(&d, outer, 0);
  });
  const auto events = Drain();
  ASSERT_EQ(events.size(), 10u);
  const uint64_t first_step = events[1].op_id;
  EXPECT_EQ(events[1].parent_op_id, outer);
  EXPECT_EQ(events[2].parent_op_id, first_step);  // left_open's LAUNCH
  EXPECT_EQ(events[3].op_id, first_step);         // its COMPLETE
  EXPECT_EQ(events[4].parent_op_id, outer) << "the second step";
  EXPECT_EQ(events[5].op_id, left_open);  // its end is recorded ...
  EXPECT_EQ(events[6].parent_op_id, events[4].op_id) << "... and restores nothing";
  EXPECT_EQ(events[8].op_id, events[4].op_id);
  EXPECT_EQ(events[9].op_id, outer);
}

}  // namespace
}  // namespace optrace
