// TailHub in-process, with its publisher and park list: requests it
// refuses, the levels tails ask for, what the drain side publishes, and how
// parked streams are resumed from the notifier thread when it publishes. Outcomes are awaited with
// generous deadlines; nothing here asserts how fast anything happens.
#include "live/tail_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "strings/string_dictionary.h"

namespace optrace::daemon {
namespace {

using std::chrono::milliseconds;

// How long a test waits for something that must happen.
constexpr auto kDeadline = std::chrono::seconds(20);

// A stream stand-in that counts the hub's Resume calls.
class CountingWaiter : public TailWaiter {
 public:
  void Resume() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++resumed_;
    cv_.notify_all();
  }
  // Waits up to `timeout` for at least `n` Resume calls in all.
  bool WaitFor(int n, std::chrono::steady_clock::duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return resumed_ >= n; });
  }
  int resumed() {
    std::lock_guard<std::mutex> lock(mu_);
    return resumed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int resumed_ = 0;
};

class TailHubTest : public ::testing::Test {
 protected:
  TailHubTest() {
    hub_.OnChange([this] { changes_.fetch_add(1); });
    session_.id = 1;
    session_.pid = 100;
    session_.uid = 1000;
    session_.label = "trainer";
  }

  std::shared_ptr<TailSubscription> Subscribe(const v1::TailRequest& request = {}) {
    auto subscription = hub_.Subscribe(request, std::nullopt);
    EXPECT_TRUE(subscription.ok()) << subscription.status().message();
    return subscription.ok() ? std::move(subscription).value() : nullptr;
  }

  // Publishes one LAUNCH half, as the drain thread does.
  void PublishLaunch(uint64_t op_id) {
    HalfOp half;
    half.op_id = op_id;
    half.kind = static_cast<uint8_t>(abi::EventKind::kLaunch);
    half.name = strings_.Intern("matmul");
    hub_.publisher().OnHalf(session_, half, std::nullopt, strings_);
  }

  std::atomic<int> changes_{0};
  TailHub hub_;
  SessionRecord session_;
  StringDictionary strings_;
};

TEST_F(TailHubTest, RefusesBadRequestsNamingTheField) {
  v1::TailRequest bad_level;
  bad_level.set_level(static_cast<v1::Level>(99));
  auto level = hub_.Subscribe(bad_level, std::nullopt);
  ASSERT_FALSE(level.ok());
  EXPECT_EQ(level.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(level.status().message().find("level"), std::string::npos);

  v1::TailRequest bad_pattern;
  bad_pattern.set_name_pattern("(unclosed");
  auto pattern = hub_.Subscribe(bad_pattern, std::nullopt);
  ASSERT_FALSE(pattern.ok());
  EXPECT_NE(pattern.status().message().find("name_pattern"), std::string::npos);

  v1::TailRequest bad_device;
  bad_device.set_has_device(true);
  bad_device.set_device(70000);
  auto device = hub_.Subscribe(bad_device, std::nullopt);
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("device"), std::string::npos);

  EXPECT_EQ(hub_.size(), 0u);
  EXPECT_EQ(changes_.load(), 0) << "a refused request changes no level";
}

TEST_F(TailHubTest, TailsRaiseTheLevelOfTheProducersTheyCover) {
  EXPECT_FALSE(hub_.publisher().Active());
  EXPECT_EQ(hub_.LevelFor(session_), abi::LevelValue::kOff);

  v1::TailRequest scoped;
  scoped.set_level(v1::LEVEL_DEBUG);
  scoped.set_label("trainer");
  auto debug = Subscribe(scoped);
  EXPECT_TRUE(hub_.publisher().Active());
  EXPECT_EQ(changes_.load(), 1);
  EXPECT_EQ(hub_.LevelFor(session_), abi::LevelValue::kDebug);
  EXPECT_EQ(hub_.LevelForNewProducers(), abi::LevelValue::kOff) << "a scoped tail";
  SessionRecord other = session_;
  other.label = "server";
  EXPECT_EQ(hub_.LevelFor(other), abi::LevelValue::kOff);

  auto trace = Subscribe();  // no scope: every producer, trace
  EXPECT_EQ(hub_.LevelFor(other), abi::LevelValue::kTrace);
  EXPECT_EQ(hub_.LevelForNewProducers(), abi::LevelValue::kTrace);

  hub_.Unsubscribe(trace);
  hub_.Unsubscribe(debug);
  EXPECT_EQ(changes_.load(), 4);
  EXPECT_FALSE(hub_.publisher().Active());
  EXPECT_EQ(hub_.LevelFor(session_), abi::LevelValue::kOff);
}

TEST_F(TailHubTest, ParkedStreamIsResumedWhenRecordsArePublished) {
  auto subscription = Subscribe();
  CountingWaiter waiter;
  const std::atomic<bool> cancelled{false};
  ASSERT_TRUE(hub_.parking().Park(&waiter, hub_.published(), /*retry=*/false, cancelled));
  EXPECT_FALSE(waiter.WaitFor(1, milliseconds(50))) << "nothing was published";
  PublishLaunch(1);
  ASSERT_TRUE(waiter.WaitFor(1, kDeadline));
  EXPECT_EQ(hub_.published(), 1u);
  EXPECT_FALSE(hub_.parking().Unpark(&waiter)) << "a resumed stream is no longer parked";
  hub_.Unsubscribe(subscription);
}

TEST_F(TailHubTest, StreamParkedBehindPublishedRecordsIsResumedAtOnce) {
  auto subscription = Subscribe();
  PublishLaunch(1);
  PublishLaunch(2);
  CountingWaiter waiter;
  const std::atomic<bool> cancelled{false};
  ASSERT_TRUE(hub_.parking().Park(&waiter, 1, /*retry=*/false, cancelled));
  ASSERT_TRUE(waiter.WaitFor(1, kDeadline));
  hub_.Unsubscribe(subscription);
}

TEST_F(TailHubTest, RetryingStreamIsResumedWithoutRecords) {
  CountingWaiter waiter;
  const std::atomic<bool> cancelled{false};
  ASSERT_TRUE(hub_.parking().Park(&waiter, hub_.published(), /*retry=*/true, cancelled));
  ASSERT_TRUE(waiter.WaitFor(1, kDeadline));
  EXPECT_EQ(hub_.published(), 0u);
}

TEST_F(TailHubTest, CancelledStreamIsNotParked) {
  CountingWaiter waiter;
  const std::atomic<bool> cancelled{true};
  EXPECT_FALSE(hub_.parking().Park(&waiter, 0, /*retry=*/true, cancelled));
  EXPECT_FALSE(hub_.parking().Unpark(&waiter));
}

TEST_F(TailHubTest, UnparkedStreamIsNeverResumed) {
  auto subscription = Subscribe();
  CountingWaiter unparked;
  CountingWaiter parked;
  const std::atomic<bool> cancelled{false};
  ASSERT_TRUE(hub_.parking().Park(&unparked, hub_.published(), /*retry=*/false, cancelled));
  ASSERT_TRUE(hub_.parking().Park(&parked, hub_.published(), /*retry=*/false, cancelled));
  ASSERT_TRUE(hub_.parking().Unpark(&unparked)) << "the caller owns the stream again";
  PublishLaunch(1);
  // The notifier resumes what is parked in one round: once `parked` was
  // resumed, `unparked` would have been too.
  ASSERT_TRUE(parked.WaitFor(1, kDeadline));
  EXPECT_EQ(unparked.resumed(), 0);
  hub_.Unsubscribe(subscription);
}

TEST_F(TailHubTest, NothingIsPublishedWhileNoTailListens) {
  PublishLaunch(1);
  EXPECT_EQ(hub_.published(), 0u);
  auto subscription = Subscribe();
  PublishLaunch(2);
  EXPECT_EQ(hub_.published(), 1u);
  hub_.Unsubscribe(subscription);
  PublishLaunch(3);
  EXPECT_EQ(hub_.published(), 1u);
}

}  // namespace
}  // namespace optrace::daemon
