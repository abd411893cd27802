// The crash trigger: one keep per session a batch ends crashed, from
// keep_before before its end or from its earliest op left open; none for
// sessions that exited or still run, nor with keep_before 0.
#include "storage/crash_keep.h"

#include <gtest/gtest.h>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::MakeSession;
using testing::MakeSpan;

constexpr int64_t kSecond = 1'000'000'000;

StoreBatch EndingBatch() {
  StoreBatch batch;
  batch.sessions = {MakeSession(1, SessionState::kCrashed, kSecond, 100 * kSecond),
                    MakeSession(2, SessionState::kExited, kSecond, 100 * kSecond),
                    MakeSession(3, SessionState::kRunning, kSecond)};
  return batch;
}

TEST(CrashKeepTest, CrashedSession_KeepsTheWindowBeforeItsEnd) {
  const std::vector<KeepRequest> keeps = CrashKeeps(EndingBatch(), 30 * kSecond);
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0].session, 1u);
  EXPECT_EQ(keeps[0].first_ns, 70 * kSecond);
  EXPECT_EQ(keeps[0].last_ns, 100 * kSecond);
  EXPECT_EQ(keeps[0].last_duration_ns, 0);
  EXPECT_EQ(keeps[0].reason, "crash");
}

TEST(CrashKeepTest, OpLeftOpenBeforeTheWindow_KeptFromItsStart) {
  StoreBatch batch = EndingBatch();
  Span open = MakeSpan(7, 20 * kSecond, 1, 0);
  open.status = SpanStatus::kIncomplete;
  Span done = MakeSpan(8, 5 * kSecond, 1, 10);  // complete: not what the crash left open
  Span other = MakeSpan(9, 2 * kSecond, 1, 0);
  other.status = SpanStatus::kIncomplete;  // of the session that exited
  batch.spans = {{1, {done, open}}, {2, {other}}};
  const std::vector<KeepRequest> keeps = CrashKeeps(batch, 30 * kSecond);
  ASSERT_EQ(keeps.size(), 1u);
  EXPECT_EQ(keeps[0].first_ns, 20 * kSecond);
  EXPECT_EQ(keeps[0].last_ns, 100 * kSecond);
}

TEST(CrashKeepTest, KeepBeforeZero_NoKeep) { EXPECT_TRUE(CrashKeeps(EndingBatch(), 0).empty()); }

}  // namespace
}  // namespace optrace::daemon
