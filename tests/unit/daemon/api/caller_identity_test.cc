// Who is an admin, from a Unix-socket caller's kernel credentials: root,
// the daemon's own uid, or a member of the admin group; every other uid is
// limited to its own sessions, whatever group let it connect.
#include "api/caller_identity.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace optrace::daemon {
namespace {

// A uid and gid no account on a test machine has.
constexpr uint32_t kStranger = 54321;

// The name of this process's group: a group that exists wherever the test runs.
std::string OwnGroupName() {
  const group* g = ::getgrgid(::getgid());
  return g != nullptr ? g->gr_name : "";
}

TEST(CallerIdentityTest, RootAndDaemonUid_AreAdmins) {
  PeerRegistry peers;
  const CallerIdentifier callers(&peers, "");
  EXPECT_TRUE(callers.FromCredentials({1, 0, 0}).admin);
  EXPECT_TRUE(callers.FromCredentials({1, ::getuid(), kStranger}).admin);
}

TEST(CallerIdentityTest, PrimaryGidOfAdminGroup_IsAdmin) {
  const std::string own = OwnGroupName();
  ASSERT_FALSE(own.empty()) << "gid " << ::getgid() << " has no name";
  PeerRegistry peers;
  const CallerIdentifier callers(&peers, own);
  const Caller caller = callers.FromCredentials({1, kStranger, ::getgid()});
  EXPECT_TRUE(caller.admin);
  EXPECT_EQ(caller.restriction(), std::nullopt);
}

TEST(CallerIdentityTest, OtherUidOutsideAdminGroup_LimitedToItsOwnUid) {
  const std::string own = OwnGroupName();
  ASSERT_FALSE(own.empty()) << "gid " << ::getgid() << " has no name";
  PeerRegistry peers;
  const CallerIdentifier callers(&peers, own);
  const Caller caller = callers.FromCredentials({1, kStranger, kStranger});
  EXPECT_FALSE(caller.admin);
  EXPECT_EQ(caller.uid, kStranger);
  EXPECT_EQ(caller.restriction(), std::optional<uint32_t>(kStranger));
  EXPECT_NE(caller.admin_right.find("membership of group " + own), std::string::npos)
      << caller.admin_right;
}

TEST(CallerIdentityTest, MissingAdminGroup_NobodyButRootAndDaemonAndMessageSaysSo) {
  PeerRegistry peers;
  const CallerIdentifier callers(&peers, "optrace-t-no-such-group");
  const Caller caller = callers.FromCredentials({1, kStranger, ::getgid()});
  EXPECT_FALSE(caller.admin);
  EXPECT_NE(caller.admin_right.find("optrace-t-no-such-group does not exist"), std::string::npos)
      << caller.admin_right;
}

}  // namespace
}  // namespace optrace::daemon
