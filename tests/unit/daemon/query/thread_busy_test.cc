// Each thread's busy share over a real database, through GetStats: self
// time over wall time per thread, the spans that count and those that do
// not (another thread's completion, a device duration, no LAUNCH, not
// OK), the filter, the order, and hostile thread ids.
#include "query/thread_busy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_test_store.h"
#include "query/span_queries.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;
constexpr int64_t kT0 = 1'700'000'000'000'000'000;

// An OK CPU span of `name` on thread `tid` from `start` (ns after kT0),
// lasting `duration`, `children` of it in its children.
Span OnThread(ApiTestStore& store, uint64_t op_id, uint32_t tid, const std::string& name,
              int64_t start, uint64_t duration, uint64_t children = 0) {
  Span s = testing::MakeSpan(op_id, kT0 + start, store.Intern(name), duration);
  s.parent_op_id = 0;
  s.children_ns = children;
  s.launch_tid = tid;
  s.complete_tid = tid;
  s.has_device_ns = false;
  s.device_ns = 0;
  s.target = 0;
  s.device = 0;
  return s;
}

v1::GetStatsResponse StatsWithThreads(ApiTestStore& store, const std::string& name = "") {
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  request.set_threads(true);
  request.mutable_filter()->set_name_pattern(name);
  v1::GetStatsResponse response;
  const Status status = GetStats(store.reader(), request, {}, &response);
  EXPECT_TRUE(status.ok()) << status.message();
  return response;
}

TEST(ThreadBusyTest, TwoThreads_SelfTimeOverWallBusiestFirst_OthersNotCounted) {
  ApiTestStore store;
  // Thread 10: "outer" [0, 100) holding "inner" [10, 60): 100 ns busy of
  // 100. Thread 20: two 10 ns ops 100 ns apart: 20 of 100.
  std::vector<Span> spans = {
      OnThread(store, 1, 10, "outer", 0, 100, 50), OnThread(store, 2, 10, "inner", 10, 50),
      OnThread(store, 3, 20, "light", 1000, 10), OnThread(store, 4, 20, "light", 1090, 10)};
  spans[1].parent_op_id = 1;
  // Not time their thread spent: completed on another thread, timed on a
  // device, no LAUNCH, not OK.
  Span crossed = OnThread(store, 5, 10, "crossed", 200, 1000);
  crossed.complete_tid = 11;
  Span device = OnThread(store, 6, 10, "device", 300, 1000);
  device.has_device_ns = true;
  device.device_ns = 900;
  Span no_launch = OnThread(store, 7, 0, "no_launch", 400, 1000);
  Span incomplete =
      testing::MakeSpan(8, kT0 + 500, store.Intern("hung"), 0, SpanStatus::kIncomplete);
  incomplete.launch_tid = 10;
  spans.insert(spans.end(), {crossed, device, no_launch, incomplete});
  store.AddSession(MakeSession(kSession), spans);

  const v1::GetStatsResponse stats = StatsWithThreads(store);
  ASSERT_EQ(stats.threads_size(), 2);
  EXPECT_EQ(stats.threads_left_out(), 0u);
  const v1::ThreadBusy& busy = stats.threads(0);
  EXPECT_EQ(busy.tid(), 10u);
  EXPECT_EQ(busy.ops(), 2u);
  EXPECT_EQ(busy.busy_ns(), 100u);
  EXPECT_EQ(busy.first_start_unix_ns(), kT0);
  EXPECT_EQ(busy.last_end_unix_ns(), kT0 + 100);
  EXPECT_EQ(busy.wall_ns(), 100u);
  EXPECT_DOUBLE_EQ(busy.busy_share(), 1.0);
  const v1::ThreadBusy& light = stats.threads(1);
  EXPECT_EQ(light.tid(), 20u);
  EXPECT_EQ(light.ops(), 2u);
  EXPECT_EQ(light.busy_ns(), 20u);
  EXPECT_EQ(light.wall_ns(), 100u);
  EXPECT_DOUBLE_EQ(light.busy_share(), 0.2);
  // The rows are as without threads.
  EXPECT_EQ(stats.rows_size(), 7);  // one per name
}

TEST(ThreadBusyTest, Filter_OnlyTheSpansThatPass) {
  ApiTestStore store;
  std::vector<Span> spans = {OnThread(store, 1, 10, "outer", 0, 100, 50),
                             OnThread(store, 2, 10, "inner", 10, 50)};
  spans[1].parent_op_id = 1;
  store.AddSession(MakeSession(kSession), spans);
  const v1::GetStatsResponse stats = StatsWithThreads(store, "^inner$");
  ASSERT_EQ(stats.threads_size(), 1);
  EXPECT_EQ(stats.threads(0).busy_ns(), 50u);
  EXPECT_EQ(stats.threads(0).wall_ns(), 50u);
  EXPECT_DOUBLE_EQ(stats.threads(0).busy_share(), 1.0);
}

TEST(ThreadBusyTest, NotAsked_NoThreads) {
  ApiTestStore store;
  store.AddSession(MakeSession(kSession), {OnThread(store, 1, 10, "op", 0, 100)});
  v1::GetStatsRequest request;
  request.set_session_id(kSession);
  v1::GetStatsResponse response;
  ASSERT_TRUE(GetStats(store.reader(), request, {}, &response).ok());
  EXPECT_EQ(response.threads_size(), 0);
}

TEST(ThreadBusyTest, Malicious_MoreThreadsThanListed_BusiestListedRestCounted) {
  ApiTestStore store;
  std::vector<Span> spans;
  const uint32_t threads = static_cast<uint32_t>(kMaxThreadsListed) + 5;
  for (uint32_t t = 1; t <= threads; ++t) {
    spans.push_back(OnThread(store, t, t, "op", static_cast<int64_t>(t) * 10, t));
  }
  store.AddSession(MakeSession(kSession), spans);
  const v1::GetStatsResponse stats = StatsWithThreads(store);
  ASSERT_EQ(static_cast<size_t>(stats.threads_size()), kMaxThreadsListed);
  EXPECT_EQ(stats.threads_left_out(), 5u);
  EXPECT_EQ(stats.threads(0).tid(), threads) << "the busiest";
}

}  // namespace
}  // namespace optrace::daemon
