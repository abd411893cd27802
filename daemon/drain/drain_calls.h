// Calls from other threads (the API's live views and level changes) that
// run on the drain thread, between passes, so that they see and change its
// state without locks.
#ifndef OPTRACE_DAEMON_DRAIN_DRAIN_CALLS_H_
#define OPTRACE_DAEMON_DRAIN_DRAIN_CALLS_H_

#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>

namespace optrace::daemon {

// Thread rules: Call from any thread but the one that runs RunAll; RunAll
// from that one thread.
class DrainCalls {
 public:
  // `wake` makes the running thread reach RunAll soon; called after each
  // queued call.
  explicit DrainCalls(std::function<void()> wake) : wake_(std::move(wake)) {}

  // Queues `fn`, wakes the thread and waits up to `timeout` for its
  // result; nullopt on timeout (the call still runs later, its result
  // unused).
  template <typename T>
  std::optional<T> Call(std::function<T()> fn, std::chrono::milliseconds timeout) {
    auto task = std::make_shared<std::packaged_task<T()>>(std::move(fn));
    std::future<T> result = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.emplace_back([task] { (*task)(); });
    }
    wake_();
    if (result.wait_for(timeout) != std::future_status::ready) return std::nullopt;
    return result.get();
  }

  // Runs every call queued so far, in the order they came.
  void RunAll() {
    std::deque<std::function<void()>> calls;
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls.swap(calls_);
    }
    for (auto& call : calls) call();
  }

 private:
  const std::function<void()> wake_;
  std::mutex mu_;
  std::deque<std::function<void()>> calls_;  // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DRAIN_CALLS_H_
