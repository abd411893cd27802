// One thread's NVTX push/pop stack across domains.
#include "nvtx/push_stack.h"

#include <gtest/gtest.h>

#include <memory>

namespace optrace::nvtx {
namespace {

// Stand-ins for two domains: the stack only compares their addresses.
const Domain* const kDefault = reinterpret_cast<const Domain*>(0x1000);
const Domain* const kOther = reinterpret_cast<const Domain*>(0x2000);

PushedRange Range(uint64_t op_id, const Domain* domain) { return {op_id, 10, 20, domain, -7}; }

class PushStackTest : public ::testing::Test {
 protected:
  // Value-initialised, as TLS storage is.
  std::unique_ptr<PushStack> stack_ = std::make_unique<PushStack>();
};

TEST_F(PushStackTest, NestedPushes_LevelsCountUpAndPopsReturnThemInnermostFirst) {
  EXPECT_EQ(stack_->Push(Range(1, kDefault)), 0);
  EXPECT_EQ(stack_->Push(Range(2, kDefault)), 1);
  EXPECT_EQ(stack_->Push(Range(3, kDefault)), 2);
  PushedRange closed;
  for (int expected = 3; expected >= 1; --expected) {
    ASSERT_TRUE(stack_->Pop(kDefault, &closed));
    EXPECT_EQ(closed.op_id, static_cast<uint64_t>(expected));
    EXPECT_EQ(closed.level, expected - 1);
    EXPECT_EQ(closed.name_id, 10u);
    EXPECT_EQ(closed.tag_id, 20u);
  }
  EXPECT_FALSE(stack_->Pop(kDefault, &closed));
}

TEST_F(PushStackTest, TwoDomains_EachHasItsOwnLevelsAndPopsItsOwnRange) {
  EXPECT_EQ(stack_->Push(Range(1, kDefault)), 0);
  EXPECT_EQ(stack_->Push(Range(2, kOther)), 0);
  EXPECT_EQ(stack_->Push(Range(3, kDefault)), 1);
  PushedRange closed;
  // The other domain's range is not the innermost, but it is its own.
  ASSERT_TRUE(stack_->Pop(kOther, &closed));
  EXPECT_EQ(closed.op_id, 2u);
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 3u);
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 1u);
}

TEST_F(PushStackTest, PopOfDomainWithNothingOpen_RefusedAndStackUnchanged) {
  stack_->Push(Range(1, kDefault));
  PushedRange closed;
  EXPECT_FALSE(stack_->Pop(kOther, &closed));
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 1u);
}

TEST_F(PushStackTest, UntracedPush_KeptSoThatPopsStayPaired) {
  stack_->Push(Range(5, kDefault));
  stack_->Push(Range(0, kDefault));  // level was off at this push
  PushedRange closed;
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 0u);
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 5u);
}

TEST_F(PushStackTest, DeeperThanMaxDepth_ExtraPushesRefusedThenPoppedFirst) {
  for (int i = 0; i < PushStack::kMaxDepth; ++i) {
    EXPECT_EQ(stack_->Push(Range(static_cast<uint64_t>(i) + 1, kDefault)), i);
  }
  EXPECT_TRUE(stack_->full());
  EXPECT_EQ(stack_->Push(Range(9999, kDefault)), -1);
  PushedRange closed;
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, 0u) << "the refused push ends first, untraced";
  ASSERT_TRUE(stack_->Pop(kDefault, &closed));
  EXPECT_EQ(closed.op_id, static_cast<uint64_t>(PushStack::kMaxDepth));
}

}  // namespace
}  // namespace optrace::nvtx
