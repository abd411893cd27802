#include "sessions_command.h"

#include <gtest/gtest.h>

#include "subprocess.h"

namespace optrace::cli {
namespace {

using optrace::testing::SplitLines;

constexpr int64_t kStart = 1'714'564'800'000'000'000;

v1::Session MakeSession(uint64_t id, v1::SessionState state) {
  v1::Session s;
  s.set_id(id);
  s.set_label("train");
  s.set_pid(4242);
  s.set_executable("/usr/bin/python3");
  s.set_start_unix_ns(kStart);
  s.set_state(state);
  s.set_spans(1000);
  if (state != v1::SESSION_STATE_RUNNING) s.set_end_unix_ns(kStart + 12'300'000'000);
  return s;
}

TEST(SessionsTableTest, Rows_AllColumns) {
  v1::ListSessionsResponse list;
  *list.add_sessions() = MakeSession(12, v1::SESSION_STATE_CRASHED);
  const auto lines = SplitLines(RenderSessionsTable(list, true, kStart + 1, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 2u);
  for (const char* column : {"ID", "LABEL", "PID", "EXECUTABLE", "START", "DURATION", "OPS",
                             "DROPS", "TRIMMED", "STATE"}) {
    EXPECT_NE(lines[0].find(column), std::string::npos) << column;
  }
  EXPECT_NE(lines[1].find("python3"), std::string::npos);
  EXPECT_EQ(lines[1].find("/usr/bin"), std::string::npos);  // the file name only
  EXPECT_NE(lines[1].find("12.3 s"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("crashed"), std::string::npos);
}

TEST(SessionsTableTest, Running_DurationUntilNow) {
  v1::ListSessionsResponse list;
  *list.add_sessions() = MakeSession(3, v1::SESSION_STATE_RUNNING);
  const std::string text =
      RenderSessionsTable(list, false, kStart + 2'000'000'000, 0, Palette(false));
  EXPECT_NE(text.find("2.00 s"), std::string::npos) << text;
}

// A producer in a container: its pid is marked and the mark explained
// under the table; a list without one has neither.
TEST(SessionsTableTest, UnverifiedPid_MarkedAndExplained) {
  v1::ListSessionsResponse list;
  *list.add_sessions() = MakeSession(3, v1::SESSION_STATE_RUNNING);
  const std::string verified = RenderSessionsTable(list, false, kStart, 0, Palette(false));
  EXPECT_EQ(verified.find("4242?"), std::string::npos) << verified;
  EXPECT_EQ(verified.find("not verified"), std::string::npos) << verified;
  list.mutable_sessions(0)->set_pid_unverified(true);
  const auto lines = SplitLines(RenderSessionsTable(list, false, kStart, 0, Palette(false)));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[1].find("4242?"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("not verified"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("PID namespace"), std::string::npos) << lines[2];
}

TEST(SessionDetailTest, UnverifiedPid_SaysWhy) {
  v1::GetSessionResponse response;
  *response.mutable_session() = MakeSession(12, v1::SESSION_STATE_RUNNING);
  response.mutable_session()->set_pid_unverified(true);
  const std::string text = RenderSessionDetail(response, kStart, Palette(false));
  EXPECT_NE(text.find("pid 4242 (the producer's own, not verified"), std::string::npos) << text;
}

TEST(SessionDetailTest, ListingCounters_ShownOnlyWhenOneIsNotZero) {
  v1::GetSessionResponse response;
  *response.mutable_session() = MakeSession(12, v1::SESSION_STATE_RUNNING);
  const std::string without = RenderSessionDetail(response, kStart, Palette(false));
  EXPECT_EQ(without.find("listings"), std::string::npos) << without;
  response.mutable_session()->mutable_listings()->set_stored(3);
  response.mutable_session()->mutable_listings()->set_refused(1);
  const std::string with = RenderSessionDetail(response, kStart, Palette(false));
  EXPECT_NE(with.find("  listings   3 stored (optrace source), 1 refused (unreadable files), 0 "
                      "dropped (listing area full), 0 capped (daemon's caps)\n"),
            std::string::npos)
      << with;
}

TEST(SessionsTableTest, Empty_HintsAtAll) {
  EXPECT_NE(RenderSessionsTable({}, false, 0, 0, Palette(false)).find("--all"), std::string::npos);
}

TEST(SessionDetailTest, OpenOps_InTheIssueStyle) {
  v1::GetSessionResponse response;
  *response.mutable_session() = MakeSession(12, v1::SESSION_STATE_RUNNING);
  v1::OpenOp* op = response.add_open_ops();
  op->set_name("rms_norm");
  op->set_op_id(40029);
  op->mutable_device()->set_target(v1::TARGET_GPU);
  op->set_open_for_ns(12'300'000'000);
  const std::string text = RenderSessionDetail(response, kStart + 1, Palette(false));
  EXPECT_NE(text.find("rms_norm id=40029 gpu:0 open for 12.3 s"), std::string::npos) << text;
  EXPECT_NE(text.find("1 ops open"), std::string::npos) << text;
}

TEST(SessionDetailTest, Ended_LeftOpenAreIncomplete) {
  v1::GetSessionResponse response;
  *response.mutable_session() = MakeSession(12, v1::SESSION_STATE_CRASHED);
  response.add_open_ops()->set_name("matmul");
  const std::string text = RenderSessionDetail(response, kStart + 1, Palette(false));
  EXPECT_NE(text.find("left open (incomplete)"), std::string::npos) << text;
  EXPECT_NE(text.find("crashed"), std::string::npos) << text;
}

TEST(SessionDurationTest, EndBeforeStart_Zero) {
  v1::Session s;
  s.set_start_unix_ns(100);
  s.set_end_unix_ns(50);
  EXPECT_EQ(SessionDurationNs(s, 0), 0u);
}

}  // namespace
}  // namespace optrace::cli
