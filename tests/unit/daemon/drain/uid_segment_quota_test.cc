#include "drain/uid_segment_quota.h"

#include <gtest/gtest.h>

namespace optrace::daemon {
namespace {

TEST(UidSegmentQuotaTest, HasRoom_PerUid) {
  UidSegmentQuota quota(2);
  quota.Take(1000);
  EXPECT_TRUE(quota.HasRoom(1000));
  quota.Take(1000);
  EXPECT_FALSE(quota.HasRoom(1000));
  EXPECT_TRUE(quota.HasRoom(0)) << "another uid";
  EXPECT_EQ(quota.Attached(1000), 2u);
  quota.Give(1000);
  EXPECT_TRUE(quota.HasRoom(1000));
  quota.Give(7);  // never taken: nothing
  EXPECT_EQ(quota.Attached(7), 0u);
}

TEST(UidSegmentQuotaTest, TakeWaitingWithRoom_AsManyAsTheUidHasRoomFor) {
  UidSegmentQuota quota(2);
  quota.Take(1000);
  quota.Take(1000);
  EXPECT_TRUE(quota.Defer(1000, "a"));
  EXPECT_TRUE(quota.Defer(1000, "b"));
  EXPECT_TRUE(quota.Defer(1000, "c"));
  EXPECT_FALSE(quota.Defer(1000, "a")) << "waiting already";
  EXPECT_TRUE(quota.Waiting("b"));
  EXPECT_EQ(quota.WaitingOf(1000), 3u);
  EXPECT_TRUE(quota.TakeWaitingWithRoom().empty()) << "no room";

  quota.Give(1000);
  EXPECT_EQ(quota.TakeWaitingWithRoom(), std::vector<std::string>{"a"}) << "room for one";
  EXPECT_FALSE(quota.Waiting("a"));
  EXPECT_EQ(quota.waiting(), 2u);
  quota.Give(1000);
  EXPECT_EQ(quota.TakeWaitingWithRoom(), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(quota.waiting(), 0u);
}

TEST(UidSegmentQuotaTest, ForgetWaitingIf_ForgetsThoseNames) {
  UidSegmentQuota quota(1);
  quota.Take(5);
  quota.Defer(5, "gone");
  quota.Defer(5, "here");
  quota.ForgetWaitingIf([](const std::string& name) { return name == "gone"; });
  EXPECT_FALSE(quota.Waiting("gone"));
  EXPECT_TRUE(quota.Waiting("here"));
  EXPECT_EQ(quota.WaitingOf(5), 1u);
}

}  // namespace
}  // namespace optrace::daemon
