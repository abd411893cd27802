// Live tails: the registry of Tail subscriptions and what they need. The
// hub owns the live path's shared parts: the bounded broadcast buffer and
// string tables every tail reads with its own cursor (TailSubscription),
// the drain side that fills them (LivePublisher), and the park list where
// streams wait for records (TailParking). It tells the drain loop what
// level live tails need (TailLevelSource) and when that changes.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_HUB_H_
#define OPTRACE_DAEMON_LIVE_TAIL_HUB_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/status.h"
#include "drain/tail_level_source.h"
#include "live/broadcast_buffer.h"
#include "live/live_publisher.h"
#include "live/published_strings.h"
#include "live/tail_parking.h"
#include "live/tail_subscription.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Thread rules: everything from any thread, except OnChange (before the
// first Subscribe) and publisher()'s listener methods (the drain thread).
class TailHub : public TailLevelSource {
 public:
  // `capacity`: records the broadcast buffer holds (a power of two), what a
  // tail may fall behind before it loses records.
  explicit TailHub(size_t capacity = size_t{1} << 16);
  TailHub(const TailHub&) = delete;
  TailHub& operator=(const TailHub&) = delete;

  // `listener` is called (from the subscribing thread) whenever the set of
  // tails changes, so that the drain loop re-evaluates producers' levels at
  // once. REQUIRES: called before the first Subscribe, at most once.
  void OnChange(std::function<void()> listener) { on_change_ = std::move(listener); }

  // Validates `request` (INVALID_ARGUMENT naming the field) and starts a
  // subscription that reads what is published from now on. `uid` restricts
  // it to one user's producers.
  Result<std::shared_ptr<TailSubscription>> Subscribe(const v1::TailRequest& request,
                                                      std::optional<uint32_t> uid);
  void Unsubscribe(const std::shared_ptr<TailSubscription>& subscription);
  size_t size() const;

  // What the drain thread publishes through (its LiveEventListener).
  LivePublisher& publisher() { return publisher_; }
  // Where streams wait for records.
  TailParking& parking() { return parking_; }

  // Live items tails lost because the drain overtook them, all tails
  // together (optrace status, counter tail_items_skipped).
  void CountSkipped(uint64_t n) { skipped_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }
  // Records the drain thread published since start.
  uint64_t published() const { return records_.published(); }

  // The most verbose level live tails need for the producer of `session`
  // (kOff when none covers it).
  abi::LevelValue LevelFor(const SessionRecord& session) const override;
  // The same for a producer not yet seen: tails without a scope.
  abi::LevelValue LevelForNewProducers() const override;

 private:
  // Tells the publisher what the tails want now. REQUIRES: mu_ held.
  void RefreshWanted();
  void Changed() const;

  std::function<void()> on_change_;
  // Declared before the parts that borrow them.
  BroadcastBuffer records_;
  PublishedStrings strings_;  // a copy of the daemon dictionary's texts, by id
  PublishedStrings labels_;   // session labels
  TailParking parking_;
  LivePublisher publisher_;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<TailSubscription>> subscriptions_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> skipped_{0};
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_HUB_H_
