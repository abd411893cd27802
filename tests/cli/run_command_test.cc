#include "run_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(FindRunSessionTest, PidReused_OnlyTheSessionStartedAfterTheRun) {
  v1::ListSessionsResponse list;  // newest first
  v1::Session* other = list.add_sessions();
  other->set_id(3);
  other->set_pid(500);
  other->set_start_unix_ns(100 * kSecond);
  v1::Session* old_same_pid = list.add_sessions();
  old_same_pid->set_id(2);
  old_same_pid->set_pid(400);
  old_same_pid->set_start_unix_ns(10 * kSecond);
  EXPECT_EQ(FindRunSession(list, 400, 99 * kSecond), std::nullopt);
  v1::Session* ours = list.add_sessions();
  *ours = *old_same_pid;
  ours->set_id(4);
  ours->set_start_unix_ns(99 * kSecond + 5);
  ASSERT_TRUE(FindRunSession(list, 400, 99 * kSecond).has_value());
  EXPECT_EQ(FindRunSession(list, 400, 99 * kSecond)->id(), 4u);
}

TEST(FindRunSessionTest, StartSlightlyBeforeTheClockRead_StillMatched) {
  v1::ListSessionsResponse list;
  v1::Session* s = list.add_sessions();
  s->set_pid(400);
  s->set_start_unix_ns(99 * kSecond - kSecond / 2);
  EXPECT_TRUE(FindRunSession(list, 400, 99 * kSecond).has_value());
}

}  // namespace
}  // namespace optrace::cli
