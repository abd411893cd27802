// Where Tail streams wait for records: a park list and the notifier thread
// that resumes each parked stream once the drain has published past the
// position it waits for. The drain thread pays for it only when the
// notifier sleeps: one lock and one wake per sleep, never per record or
// per stream.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_PARKING_H_
#define OPTRACE_DAEMON_LIVE_TAIL_PARKING_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "live/broadcast_buffer.h"

namespace optrace::daemon {

// A stream that waits for records (serving side). The notifier calls
// Resume once, on its thread, when records past the position it parked at
// are published (or, for a stream parked with `retry`, at the next
// notifier round); the stream is no longer parked then.
class TailWaiter {
 public:
  virtual ~TailWaiter() = default;
  virtual void Resume() = 0;
};

// Thread rules: Park and Unpark from any thread; Published from the one
// thread that appends to `records` (the drain thread).
class TailParking {
 public:
  // Starts the notifier thread, which watches `records` (it must outlive
  // this object); the destructor stops and joins it.
  explicit TailParking(const BroadcastBuffer& records);
  ~TailParking();
  TailParking(const TailParking&) = delete;
  TailParking& operator=(const TailParking&) = delete;

  // Parks `waiter` until records past `position` exist (`retry`: until the
  // next notifier round, whatever is published), unless `cancelled` is
  // set: then returns false and parks nothing. Checking `cancelled` under
  // the park lock is what lets a stream's cancellation, which sets it and
  // then calls Unpark, never miss a parked stream. REQUIRES: `waiter` is
  // not parked and stays alive while it is.
  bool Park(TailWaiter* waiter, uint64_t position, bool retry, const std::atomic<bool>& cancelled);
  // Takes `waiter` out of the park list. True when it was there (the
  // caller now owns the stream); false when it was not parked, or is being
  // resumed.
  bool Unpark(TailWaiter* waiter);

  // Writer thread, right after each append to `records`: wakes the
  // notifier if it sleeps waiting for records.
  void Published() {
    // The append's seq_cst store, then this seq_cst load: pairs with
    // NotifierLoop (see there).
    if (sleeping_.load(std::memory_order_seq_cst)) [[unlikely]]
      WakeSleepingNotifier();
  }

 private:
  struct Parked {
    TailWaiter* waiter;
    uint64_t position;
    bool retry;
  };

  void WakeSleepingNotifier();
  void NotifierLoop();

  const BroadcastBuffer& records_;

  std::mutex park_mu_;
  std::vector<Parked> parked_;  // GUARDED_BY(park_mu_)
  // Set (under park_mu_) while nothing is parked: the notifier then sleeps
  // until Park clears it.
  std::atomic<bool> idle_{true};

  // The notifier sleeps on wake_cv_ while it waits; with sleeping_ set it
  // waits for the writer, which takes wake_mu_ only to wake it, at most
  // once per sleep.
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  std::atomic<bool> sleeping_{false};
  bool stop_ = false;  // GUARDED_BY(wake_mu_)
  std::thread notifier_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_PARKING_H_
