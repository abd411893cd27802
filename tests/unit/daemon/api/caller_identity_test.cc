// Who is an admin, from a Unix-socket caller's kernel credentials: root,
// the daemon's own uid, or a member of the admin group; every other uid is
// limited to its own sessions, whatever group let it connect.
#include "api/caller_identity.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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

// Every account but root and this process's uid (which are admins by rule),
// with whether the group database puts it in group `gid`, read on this
// one thread.
std::map<uid_t, bool> MembershipOfEveryAccount(gid_t gid) {
  std::map<uid_t, bool> member;
  ::setpwent();
  while (const passwd* pw = ::getpwent()) {
    if (pw->pw_uid == 0 || pw->pw_uid == ::getuid()) continue;
    int count = 256;
    std::vector<gid_t> groups(static_cast<size_t>(count));
    if (::getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) continue;
    groups.resize(static_cast<size_t>(count));
    member[pw->pw_uid] = std::find(groups.begin(), groups.end(), gid) != groups.end();
  }
  ::endpwent();
  return member;
}

// The primary group of some account: the admin group of the test below,
// which its member sees and the other accounts do not.
std::optional<gid_t> SomeAccountsGroup() {
  std::optional<gid_t> gid;
  ::setpwent();
  while (const passwd* pw = ::getpwent()) {
    if (pw->pw_uid != 0 && pw->pw_uid != ::getuid() && pw->pw_gid != 0) gid = pw->pw_gid;
  }
  ::endpwent();
  return gid;
}

// Issue 29 finding 3: the decision is taken on gRPC's handler threads, many
// at once; each thread's answer must be its own uid's, never one decided
// from another thread's user name. Probabilistic: the lookups run
// concurrently a few thousand times, which swapped names before the
// reentrant lookups.
TEST(CallerIdentityTest, ManyThreadsAtOnce_EachUidGetsItsOwnAnswer) {
  const std::optional<gid_t> admin_gid = SomeAccountsGroup();
  if (!admin_gid) GTEST_SKIP() << "no account besides root and uid " << ::getuid();
  const group* g = ::getgrgid(*admin_gid);
  if (g == nullptr) GTEST_SKIP() << "gid " << *admin_gid << " has no name";
  const std::string admin_group = g->gr_name;
  const std::map<uid_t, bool> expected = MembershipOfEveryAccount(*admin_gid);
  const size_t admins = static_cast<size_t>(
      std::count_if(expected.begin(), expected.end(), [](const auto& e) { return e.second; }));
  if (admins == 0 || admins == expected.size()) {
    GTEST_SKIP() << "every account answers alike for group " << admin_group;
  }
  PeerRegistry peers;
  const CallerIdentifier callers(&peers, admin_group);
  constexpr int kRounds = 1000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        auto it = expected.begin();
        std::advance(it, static_cast<long>((static_cast<size_t>(t + round)) % expected.size()));
        // A gid that is not the admin group's: only the group database decides.
        if (callers.FromCredentials({1, it->first, kStranger}).admin != it->second) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0) << "of " << 8 * kRounds << " decisions for " << expected.size()
                             << " accounts, admin group " << admin_group;
}

}  // namespace
}  // namespace optrace::daemon
