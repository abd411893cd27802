// Turns Ctrl-C (SIGINT) and SIGTERM into a callback on an ordinary thread,
// where it may do what a signal handler may not (cancel a gRPC call).
#ifndef OPTRACE_CLI_INTERRUPT_WATCHER_H_
#define OPTRACE_CLI_INTERRUPT_WATCHER_H_

#include <atomic>
#include <functional>
#include <thread>

namespace optrace::cli {

class InterruptWatcher {
 public:
  // Installs handlers for SIGINT and SIGTERM and starts the thread that
  // runs `on_interrupt` (at most once) when either arrives.
  // REQUIRES: at most one watcher exists at a time.
  explicit InterruptWatcher(std::function<void()> on_interrupt);
  // Restores the previous handlers and joins the thread.
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // True once a signal arrived (and `on_interrupt` was called or is running).
  bool interrupted() const { return interrupted_.load(std::memory_order_acquire); }

 private:
  void Watch();

  std::function<void()> on_interrupt_;
  int pipe_read_ = -1;
  int pipe_write_ = -1;
  std::atomic<bool> interrupted_{false};
  std::thread thread_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_INTERRUPT_WATCHER_H_
