#include "trim_notice.h"

#include <gtest/gtest.h>

#include "human_format.h"

namespace optrace::cli {
namespace {

TEST(TrimNoticeTest, NothingTrimmed_NoNotice) {
  v1::Session session;
  session.set_id(3);
  EXPECT_FALSE(WasTrimmed(session));
  EXPECT_EQ(TrimNotice(session), "");
}

TEST(TrimNoticeTest, Trimmed_NamesSessionTimeAndCount) {
  v1::Session session;
  session.set_id(3);
  session.set_spans_trimmed(120000);
  session.set_trimmed_before_unix_ns(1'796'000'000'250'000'000);
  EXPECT_TRUE(WasTrimmed(session));
  EXPECT_EQ(TrimNotice(session), "session 3 trimmed before " +
                                     FormatWallTime(1'796'000'000'250'000'000) +
                                     ": spans older than that are not stored (120000 spans "
                                     "trimmed)");
}

TEST(TrimNoticeTest, OlderKeeps_NamedWithWhereToListThem) {
  v1::Session session;
  session.set_id(3);
  session.set_spans_trimmed(10);
  session.set_trimmed_before_unix_ns(1'796'000'000'250'000'000);
  session.set_keeps_before_trim(1);
  EXPECT_EQ(TrimNotice(session), "session 3 trimmed before " +
                                     FormatWallTime(1'796'000'000'250'000'000) +
                                     ": spans older than that are not stored but for 1 kept range "
                                     "(optrace keeps 3) (10 spans trimmed)");
  session.set_keeps_before_trim(2);
  EXPECT_NE(TrimNotice(session).find("but for 2 kept ranges (optrace keeps 3)"), std::string::npos);
}

}  // namespace
}  // namespace optrace::cli
