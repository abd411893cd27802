#include "live/tail_parking.h"

#include <algorithm>
#include <chrono>

#include "common/this_thread.h"

namespace optrace::daemon {
namespace {

// How long the notifier naps after a round that resumed streams, so that
// streams parking one after the other are resumed together and the drain
// wakes it at most a few thousand times a second.
constexpr auto kCoalesce = std::chrono::microseconds(200);

}  // namespace

TailParking::TailParking(const BroadcastBuffer& records) : records_(records) {
  notifier_ = std::thread([this] { NotifierLoop(); });
}

TailParking::~TailParking() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    stop_ = true;
  }
  wake_cv_.notify_all();
  notifier_.join();
}

bool TailParking::Park(TailWaiter* waiter, uint64_t position, bool retry,
                       const std::atomic<bool>& cancelled) {
  bool was_idle = false;
  {
    std::lock_guard<std::mutex> lock(park_mu_);
    if (cancelled.load(std::memory_order_acquire)) return false;
    parked_.push_back(Parked{waiter, position, retry});
    was_idle = idle_.exchange(false, std::memory_order_relaxed);
  }
  if (was_idle) {
    std::lock_guard<std::mutex> lock(wake_mu_);
    wake_cv_.notify_one();
  }
  return true;
}

bool TailParking::Unpark(TailWaiter* waiter) {
  std::lock_guard<std::mutex> lock(park_mu_);
  const auto it = std::find_if(parked_.begin(), parked_.end(),
                               [&](const Parked& p) { return p.waiter == waiter; });
  if (it == parked_.end()) return false;
  parked_.erase(it);
  return true;
}

void TailParking::WakeSleepingNotifier() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  sleeping_.store(false, std::memory_order_relaxed);
  wake_cv_.notify_one();
}

void TailParking::NotifierLoop() {
  NameThisThread("optrace-tails");
  std::vector<TailWaiter*> ready;
  while (true) {
    const uint64_t seen = records_.published();
    bool retry = false;
    ready.clear();
    {
      std::lock_guard<std::mutex> lock(park_mu_);
      std::erase_if(parked_, [&](const Parked& p) {
        if (!p.retry && p.position >= seen) return false;
        ready.push_back(p.waiter);
        return true;
      });
      for (const Parked& p : parked_) retry = retry || p.retry;
      idle_.store(parked_.empty(), std::memory_order_relaxed);
    }
    // Outside the park lock: a resumed stream may park again at once.
    for (TailWaiter* w : ready) w->Resume();
    std::unique_lock<std::mutex> lock(wake_mu_);
    if (stop_) return;
    if (!ready.empty()) {
      lock.unlock();
      std::this_thread::sleep_for(kCoalesce);
      continue;
    }
    if (idle_.load(std::memory_order_relaxed)) {
      wake_cv_.wait(lock, [&] { return stop_ || !idle_.load(std::memory_order_relaxed); });
      continue;
    }
    // Streams wait for records past `seen`: sleep until the writer appends.
    // Seq_cst store, then the seq_cst load in published(); the writer does
    // the mirror image (Published): either it sees sleeping_ and wakes us,
    // or we see its record here and do not sleep.
    sleeping_.store(true, std::memory_order_seq_cst);
    if (records_.published() == seen) {
      wake_cv_.wait_for(lock, retry ? std::chrono::milliseconds(10) : std::chrono::seconds(1),
                        [&] { return stop_ || !sleeping_.load(std::memory_order_relaxed); });
    }
    sleeping_.store(false, std::memory_order_relaxed);
  }
}

}  // namespace optrace::daemon
