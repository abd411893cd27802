#include "drain/drain_wakeups.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/shared_futex.h"

namespace optrace::daemon {

Result<std::unique_ptr<DrainWakeups>> DrainWakeups::Create(ControlSegment* control,
                                                           std::atomic<uint64_t>* producer_wakes) {
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status::IoError(std::string("eventfd: ") + std::strerror(errno));
  return std::unique_ptr<DrainWakeups>(new DrainWakeups(control, producer_wakes, fd));
}

DrainWakeups::DrainWakeups(ControlSegment* control, std::atomic<uint64_t>* producer_wakes,
                           int event_fd)
    : control_(control), producer_wakes_(producer_wakes), event_fd_(event_fd) {
  if (control_ != nullptr) waiter_ = std::thread([this] { WaitForProducers(); });
}

DrainWakeups::~DrainWakeups() {
  if (waiter_.joinable()) {
    control_->StopWakeWaiters();
    waiter_.join();
  }
  ::close(event_fd_);
}

void DrainWakeups::Notify() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(event_fd_, &one, sizeof one);
}

void DrainWakeups::BeforeSleep() {
  if (control_ != nullptr) control_->SetDrainSleeping(true);
}

void DrainWakeups::AfterSleep() {
  if (control_ != nullptr) control_->SetDrainSleeping(false);
}

void DrainWakeups::Consume() {
  uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = ::read(event_fd_, &count, sizeof count);
}

void DrainWakeups::WaitForProducers() {
  const std::atomic<uint32_t>& word = control_->wake_word();
  // The word stays 0 while the daemon runs: every return from the wait is
  // a producer's wake (or, rarely, a spurious one: one extra pass).
  // Acquire pairs with the release store in StopWakeWaiters.
  while (word.load(std::memory_order_acquire) == 0) {
    SharedFutexWait(&word, 0, 0);
    if (word.load(std::memory_order_acquire) != 0) return;
    producer_wakes_->fetch_add(1, std::memory_order_relaxed);
    Notify();
  }
}

}  // namespace optrace::daemon
