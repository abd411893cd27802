// Live tails: the drain thread appends one compact record per ingested
// event or span to a shared bounded broadcast buffer (no protobuf, no
// string copies, no lock per tail), and every Tail stream reads it with its
// own cursor on the serving side (TailSubscription). The hub also tells the
// drain loop what level live tails need, and wakes streams waiting for
// records from a notifier thread of its own.
#ifndef OPTRACE_DAEMON_LIVE_TAIL_HUB_H_
#define OPTRACE_DAEMON_LIVE_TAIL_HUB_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "drain/producer_session.h"
#include "drain/tail_level_source.h"
#include "live/broadcast_buffer.h"
#include "live/published_strings.h"
#include "live/tail_subscription.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// A stream that waits for records (serving side). The hub calls Resume
// once, on its notifier thread, when records past the position it parked
// at are published (or, for a stream parked with `retry`, at the next
// notifier round); the stream is no longer parked then.
class TailWaiter {
 public:
  virtual ~TailWaiter() = default;
  virtual void Resume() = 0;
};

// Thread rules: Subscribe/Unsubscribe/Park/Unpark/levels from any thread;
// the LiveEventListener methods on the drain thread only.
class TailHub : public LiveEventListener, public TailLevelSource {
 public:
  // `on_change` is called (from the subscribing thread) whenever the set of
  // tails changes, so the drain loop re-evaluates producers' levels at once.
  // `capacity`: records the broadcast buffer holds (a power of two), what a
  // tail may fall behind before it loses records.
  explicit TailHub(std::function<void()> on_change, size_t capacity = size_t{1} << 16);
  ~TailHub() override;
  TailHub(const TailHub&) = delete;
  TailHub& operator=(const TailHub&) = delete;

  // Validates `request` (INVALID_ARGUMENT naming the field) and starts a
  // subscription that reads what is published from now on. `uid` restricts
  // it to one user's producers.
  Result<std::shared_ptr<TailSubscription>> Subscribe(const v1::TailRequest& request,
                                                      std::optional<uint32_t> uid);
  void Unsubscribe(const std::shared_ptr<TailSubscription>& subscription);
  size_t size() const;

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

  bool Active() const override { return active_.load(std::memory_order_relaxed); }
  void OnHalf(const SessionRecord& session, const HalfOp& half, std::optional<uint64_t> duration_ns,
              const StringDictionary& strings) override;
  void OnInstant(const SessionRecord& session, const Instant& instant,
                 const StringDictionary& strings) override;
  void OnSpan(const SessionRecord& session, const Span& span,
              const StringDictionary& strings) override;

 private:
  struct Parked {
    TailWaiter* waiter;
    uint64_t position;
    bool retry;
  };

  // Drain thread: a record with the session's fields filled in.
  LiveRecord RecordFor(const SessionRecord& session, LiveRecordType type);
  // Drain thread: makes daemon string ids up to `max_id` resolvable.
  void PublishStrings(StringId max_id, const StringDictionary& strings);
  // Drain thread: appends `record` and wakes the notifier if it sleeps.
  void Publish(const LiveRecord& record);
  // Recomputes what the drain publishes. REQUIRES: mu_ held.
  void RefreshWanted();
  void NotifierLoop();

  const std::function<void()> on_change_;
  BroadcastBuffer records_;
  PublishedStrings strings_;  // a copy of the daemon dictionary's texts, by id
  PublishedStrings labels_;   // session labels

  // Drain thread only.
  std::unordered_map<std::string, uint32_t> label_ids_;
  SessionId last_session_ = 0;
  uint32_t last_label_ = 0;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<TailSubscription>> subscriptions_;  // GUARDED_BY(mu_)
  std::atomic<bool> active_{false};
  std::atomic<bool> events_wanted_{false};  // some tail shows events
  std::atomic<bool> spans_wanted_{false};   // some tail shows spans
  std::atomic<uint64_t> skipped_{0};

  std::mutex park_mu_;
  std::vector<Parked> parked_;  // GUARDED_BY(park_mu_)
  // Set (under park_mu_) while nothing is parked: the notifier then sleeps
  // until Park clears it.
  std::atomic<bool> idle_{true};

  // The notifier sleeps on wake_cv_ while it waits; with sleeping_ set it
  // waits for the drain thread, which takes wake_mu_ only to wake it, at
  // most once per sleep (never per record or per tail).
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  std::atomic<bool> sleeping_{false};
  bool stop_ = false;  // GUARDED_BY(wake_mu_)
  std::thread notifier_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_TAIL_HUB_H_
