// StreamQuota's per-uid and daemon-wide caps: who is refused, with which
// message, and that what a lease held comes back with it.
#include "api/stream_quota.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::daemon {
namespace {

constexpr uint64_t kBytes = 64 << 10;

StreamLimits Limits() {
  return {.max_streams_per_uid = 1024,
          .max_bytes_in_flight_per_uid = kBytes,
          .max_threaded_streams = 3,
          .max_threaded_streams_per_uid = 2};
}

TEST(StreamQuotaTest, ThreadedStreams_UidCapThenDaemonCapEachNamedOthersServed) {
  StreamQuota quota(Limits());
  StreamQuota::Lease a1, a2, a3, b1, c1;
  ASSERT_TRUE(quota.OpenThreaded(1, "Export", &a1).ok());
  ASSERT_TRUE(quota.OpenThreaded(1, "Export", &a2).ok());
  const grpc::Status uid_cap = quota.OpenThreaded(1, "Export", &a3);
  EXPECT_EQ(uid_cap.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(uid_cap.error_message().find(
                "Export refused: uid 1 has 2 QueryOps and Export streams being served, the cap "
                "max_threaded_streams_per_uid is 2"),
            std::string::npos)
      << uid_cap.error_message();
  ASSERT_TRUE(quota.OpenThreaded(2, "QueryOps", &b1).ok()) << "another uid is served";
  const grpc::Status daemon_cap = quota.OpenThreaded(3, "QueryOps", &c1);
  EXPECT_EQ(daemon_cap.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(daemon_cap.error_message().find("max_threaded_streams is 3"), std::string::npos)
      << daemon_cap.error_message();
  EXPECT_EQ(quota.streams(), 3u) << "refused streams are not counted";

  StreamQuota::Lease thread;
  EXPECT_FALSE(quota.TryTakeThread(3, &thread)) << "the daemon's threads are all taken";
  a1 = StreamQuota::Lease();
  EXPECT_TRUE(quota.TryTakeThread(3, &thread));
  EXPECT_EQ(quota.streams(), 2u) << "a thread alone is no stream";
  StreamQuota::Lease another;
  EXPECT_FALSE(quota.TryTakeThread(1, &another)) << "all three threads are taken again";
  thread = StreamQuota::Lease();
  EXPECT_TRUE(quota.OpenThreaded(1, "Export", &a1).ok()) << "released with its lease";
}

TEST(StreamQuotaTest, BytesInFlight_StreamWaitingForRoom_NewStreamOfItsUidRefused) {
  StreamQuota quota(Limits());
  StreamQuota::Lease holder, waiter, newcomer, other;
  ASSERT_TRUE(quota.Open(1, "Tail", &holder).ok());
  ASSERT_TRUE(quota.Open(1, "Tail", &waiter).ok());
  ASSERT_TRUE(holder.ReserveBytes(kBytes)) << "a uid that holds nothing is never refused";
  EXPECT_FALSE(waiter.ReserveBytes(1));
  EXPECT_EQ(quota.bytes_in_flight(), kBytes);
  const grpc::Status refused = quota.Open(1, "Tail", &newcomer);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find(
                "uid 1 has 1 streams waiting for its clients to read the 65536 bytes its streams "
                "hold, the cap max_bytes_in_flight_per_uid is 65536"),
            std::string::npos)
      << refused.error_message();
  EXPECT_TRUE(quota.Open(2, "Tail", &other).ok()) << "another uid is served";
  holder.ReleaseBytes(kBytes);
  EXPECT_TRUE(waiter.ReserveBytes(1)) << "room again";
  EXPECT_TRUE(quota.Open(1, "Tail", &newcomer).ok()) << "nothing waits any more";
  waiter = StreamQuota::Lease();
  EXPECT_EQ(quota.bytes_in_flight(), 0u) << "what a lease held goes with it";
}

}  // namespace
}  // namespace optrace::daemon
