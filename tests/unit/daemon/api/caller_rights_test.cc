// The API's authorization decisions (issue 16 item 9): a caller who may
// connect sees and controls only its own uid's sessions; the global level,
// levels by label and fleet queries need the admin right, and every
// refusal says which right is missing and how to get it.
#include "api/caller_rights.h"

#include <gtest/gtest.h>

#include "store_test_data.h"

namespace optrace::daemon {
namespace {

constexpr uint32_t kAlice = 2001;
constexpr uint32_t kBob = 2002;

Caller Member(uint32_t uid) {
  return Caller{uid, false, DescribeAdminRight("optrace-admin", true, 999)};
}

Caller Admin(uint32_t uid) {
  return Caller{uid, true, DescribeAdminRight("optrace-admin", true, 999)};
}

SessionRecord SessionOf(uint32_t uid, SessionId id) {
  SessionRecord record = testing::MakeSession(id, SessionState::kExited, 100, 200);
  record.uid = uid;
  return record;
}

void ExpectDeniedNamingAdminGroup(const Status& st) {
  EXPECT_EQ(st.code(), Status::Code::kPermissionDenied) << st.message();
  EXPECT_NE(st.message().find("needs membership of group optrace-admin"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("usermod -aG optrace-admin"), std::string::npos) << st.message();
}

TEST(CallerRightsTest, Member_OwnSession_Allowed) {
  EXPECT_TRUE(CheckMaySee(Member(kAlice), SessionOf(kAlice, 7)).ok());
  EXPECT_EQ(Member(kAlice).restriction(), std::optional<uint32_t>(kAlice));
}

TEST(CallerRightsTest, Member_OtherUsersSession_DeniedNamingSessionAndRight) {
  const Status st = CheckMaySee(Member(kAlice), SessionOf(kBob, 8));
  ExpectDeniedNamingAdminGroup(st);
  EXPECT_NE(st.message().find("session 8 belongs to another user"), std::string::npos)
      << st.message();
}

TEST(CallerRightsTest, Admin_OtherUsersSession_AllowedAndUnrestricted) {
  EXPECT_TRUE(CheckMaySee(Admin(kAlice), SessionOf(kBob, 8)).ok());
  EXPECT_EQ(Admin(kAlice).restriction(), std::nullopt);
}

TEST(CallerRightsTest, Member_AdminAction_DeniedNamingTheAction) {
  const Status st = CheckAdmin(Member(kAlice), "a fleet query");
  ExpectDeniedNamingAdminGroup(st);
  EXPECT_EQ(st.message().rfind("a fleet query needs ", 0), 0u) << st.message();
  EXPECT_TRUE(CheckAdmin(Admin(kAlice), "a fleet query").ok());
}

TEST(CallerRightsTest, Member_GlobalOrLabelLevel_Denied_SessionOrPidAllowed) {
  v1::SetLevelRequest global;
  global.set_level(v1::LEVEL_TRACE);
  const Status st = CheckLevelScope(Member(kAlice), global);
  ExpectDeniedNamingAdminGroup(st);
  EXPECT_NE(st.message().find("global default level"), std::string::npos) << st.message();

  v1::SetLevelRequest clear_global;
  clear_global.set_clear(true);
  ExpectDeniedNamingAdminGroup(CheckLevelScope(Member(kAlice), clear_global));

  v1::SetLevelRequest by_label = global;
  by_label.set_label("train");
  const Status label_st = CheckLevelScope(Member(kAlice), by_label);
  ExpectDeniedNamingAdminGroup(label_st);
  EXPECT_NE(label_st.message().find("by label"), std::string::npos) << label_st.message();

  v1::SetLevelRequest by_session = global;
  by_session.set_session_id(7);
  EXPECT_TRUE(CheckLevelScope(Member(kAlice), by_session).ok());
  v1::SetLevelRequest by_pid = global;
  by_pid.set_pid(4242);
  EXPECT_TRUE(CheckLevelScope(Member(kAlice), by_pid).ok());
}

TEST(CallerRightsTest, Admin_AnyLevelScope_Allowed) {
  v1::SetLevelRequest global;
  global.set_level(v1::LEVEL_TRACE);
  EXPECT_TRUE(CheckLevelScope(Admin(kAlice), global).ok());
  global.set_label("train");
  EXPECT_TRUE(CheckLevelScope(Admin(kAlice), global).ok());
}

TEST(CallerRightsTest, Member_Status_ErrorTextsRemovedCountsKept) {
  v1::GetStatusResponse status;
  status.set_writer_last_error("batch 3 dropped: disk full");
  status.set_writer_errors(3);
  status.mutable_forward()->set_last_error("ClickHouse refused row 'bob_secret_op'");
  status.mutable_forward()->set_errors(2);
  status.set_running_sessions(4);

  v1::GetStatusResponse for_admin = status;
  LimitStatusToCaller(Admin(kAlice), &for_admin);
  EXPECT_EQ(for_admin.writer_last_error(), status.writer_last_error());
  EXPECT_EQ(for_admin.forward().last_error(), status.forward().last_error());

  LimitStatusToCaller(Member(kAlice), &status);
  EXPECT_EQ(status.writer_last_error(), "");
  EXPECT_EQ(status.forward().last_error(), "");
  EXPECT_EQ(status.writer_errors(), 3u);
  EXPECT_EQ(status.forward().errors(), 2u);
  EXPECT_EQ(status.running_sessions(), 4u);
}

TEST(CallerRightsTest, AdminRight_NoOrMissingGroup_SaysWhoIsAdminAndWhy) {
  const std::string missing = DescribeAdminRight("optrace-admin", false, 999);
  EXPECT_NE(missing.find("root or uid 999"), std::string::npos) << missing;
  EXPECT_NE(missing.find("optrace-admin does not exist"), std::string::npos) << missing;
  EXPECT_NE(missing.find("groupadd --system optrace-admin"), std::string::npos) << missing;
  const std::string none = DescribeAdminRight("", false, 999);
  EXPECT_NE(none.find("root or uid 999"), std::string::npos) << none;
  EXPECT_NE(none.find("admin_group"), std::string::npos) << none;
}

}  // namespace
}  // namespace optrace::daemon
