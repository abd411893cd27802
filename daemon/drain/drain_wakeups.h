// What wakes the drain thread besides its timer: other daemon threads (API
// calls, tails, stop) and producers whose rings cross their fill watermark
// while it sleeps.
#ifndef OPTRACE_DAEMON_DRAIN_DRAIN_WAKEUPS_H_
#define OPTRACE_DAEMON_DRAIN_DRAIN_WAKEUPS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "common/status.h"
#include "control/control_segment.h"

namespace optrace::daemon {

// An eventfd for the drain thread's epoll set, written by Notify, and, with
// a control segment, a waiter thread that sleeps on the control block's
// futex word (no CPU while idle) and turns each producer wake into a Notify.
// Thread rules: Notify from any thread; BeforeSleep, AfterSleep and Consume
// from the drain thread only. `control` (may be null: no producer wakes)
// and `producer_wakes` (counts them) must outlive this object.
class DrainWakeups {
 public:
  static Result<std::unique_ptr<DrainWakeups>> Create(ControlSegment* control,
                                                      std::atomic<uint64_t>* producer_wakes);
  // Stops the waiter thread (for good: the control segment's wake word is
  // retired) and closes the eventfd.
  ~DrainWakeups();
  DrainWakeups(const DrainWakeups&) = delete;
  DrainWakeups& operator=(const DrainWakeups&) = delete;

  // Readable while a wake-up is pending (for epoll).
  int fd() const { return event_fd_; }

  // Makes fd() readable. Never blocks.
  void Notify();

  // Around the drain thread's sleep: producers wake it only while it says
  // it sleeps, so that a busy daemon costs them no system call.
  void BeforeSleep();
  void AfterSleep();

  // Clears the pending wake-up once epoll reported fd() readable.
  void Consume();

 private:
  DrainWakeups(ControlSegment* control, std::atomic<uint64_t>* producer_wakes, int event_fd);
  void WaitForProducers();  // the waiter thread's body

  ControlSegment* const control_;
  std::atomic<uint64_t>* const producer_wakes_;
  const int event_fd_;
  std::thread waiter_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_DRAIN_WAKEUPS_H_
