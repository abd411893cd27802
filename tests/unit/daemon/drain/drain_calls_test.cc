// Calls from other threads run on the thread that runs RunAll, woken by
// each call, and give up after their timeout when nobody runs them.
#include "drain/drain_calls.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

namespace optrace::daemon {
namespace {

using namespace std::chrono_literals;

// A thread that runs the calls whenever it is woken, until stopped.
class Runner {
 public:
  Runner() : calls_([this] { Wake(); }), thread_([this] { Loop(); }) {}
  ~Runner() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  DrainCalls& calls() { return calls_; }
  std::thread::id id() const { return thread_.get_id(); }
  int wakes() const { return wakes_.load(); }

 private:
  void Wake() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++pending_wakes_;
    }
    wakes_.fetch_add(1);
    cv_.notify_all();
  }
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || pending_wakes_ > 0; });
      if (stop_) return;
      pending_wakes_ = 0;
      lock.unlock();
      calls_.RunAll();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int pending_wakes_ = 0;
  std::atomic<int> wakes_{0};
  DrainCalls calls_;
  std::thread thread_;
};

TEST(DrainCallsTest, Call_RunnerWoken_RunsOnTheRunnerAndReturnsItsResult) {
  Runner runner;
  const auto on =
      runner.calls().Call<std::thread::id>([] { return std::this_thread::get_id(); }, 10s);
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(*on, runner.id());
  EXPECT_NE(*on, std::this_thread::get_id());
  const auto sum = runner.calls().Call<int>([] { return 40 + 2; }, 10s);
  EXPECT_EQ(sum, 42);
  EXPECT_EQ(runner.wakes(), 2) << "one wake per call";
}

TEST(DrainCallsTest, Call_NobodyRunsIt_NulloptAndTheLateRunIsHarmless) {
  int wakes = 0;
  DrainCalls calls([&] { ++wakes; });
  auto ran = std::make_shared<std::atomic<int>>(0);
  EXPECT_FALSE(calls.Call<int>([ran] { return ++*ran; }, 10ms).has_value());
  EXPECT_EQ(wakes, 1);
  EXPECT_EQ(ran->load(), 0);
  calls.RunAll();  // its caller gave up; the call still runs, once
  EXPECT_EQ(ran->load(), 1);
  calls.RunAll();
  EXPECT_EQ(ran->load(), 1);
}

}  // namespace
}  // namespace optrace::daemon
