// Live tails: fans the events and spans the drain thread ingests out to
// every Tail stream whose filter wants them, each through a bounded queue
// of its own, and tells the drain loop what level live tails need.
#ifndef OPTRACE_DAEMON_API_TAIL_HUB_H_
#define OPTRACE_DAEMON_API_TAIL_HUB_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "drain/producer_session.h"
#include "drain/tail_level_source.h"
#include "optrace/v1/optrace.pb.h"

namespace re2 {
class RE2;
}

namespace optrace::daemon {

// One Tail stream: its filter (used on the drain thread) and its queue
// (filled by the drain thread, emptied by the stream's gRPC thread). When
// the queue is full, items are skipped and counted, never waited for.
class TailSubscription {
 public:
  struct Filter {
    abi::LevelValue level = abi::LevelValue::kTrace;
    SessionId session = 0;
    uint32_t pid = 0;
    std::string label;
    std::unique_ptr<re2::RE2> pattern;
    uint8_t target = 0;
    std::optional<uint16_t> device;
    uint64_t min_duration_ns = 0;
    bool events = true;
    bool spans = false;
    std::optional<uint32_t> uid;  // callers who may only see their own sessions
  };

  TailSubscription(Filter filter, size_t capacity);
  ~TailSubscription();

  // Moves queued items into `out` and the number skipped since the last
  // call into `*skipped`, waiting up to `timeout` for the first one.
  // Thread rules: the stream's thread only.
  void Pop(std::vector<v1::TailResponse>* out, uint64_t* skipped,
           std::chrono::milliseconds timeout);

  // Whether this tail covers the producer of `session` (scope and uid).
  bool CoversProducer(const SessionRecord& session) const;
  const Filter& filter() const { return filter_; }

  // Drain thread only: should `name`/`tag` pass the pattern? Cached per id.
  bool NameMatches(StringId name, StringId tag, const StringDictionary& strings);
  // Drain thread only: queues `item` or counts it skipped.
  void Push(v1::TailResponse item);

 private:
  const Filter filter_;
  const size_t capacity_;
  std::unordered_map<StringId, bool> match_cache_;  // drain thread only
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<v1::TailResponse> queue_;  // GUARDED_BY(mu_)
  uint64_t skipped_ = 0;                // GUARDED_BY(mu_)
};

// Thread rules: Subscribe/Unsubscribe/levels from any thread; the
// LiveEventListener methods on the drain thread.
class TailHub : public LiveEventListener, public TailLevelSource {
 public:
  // `on_change` is called (from the subscribing thread) whenever the set of
  // tails changes, so the drain loop re-evaluates producers' levels at once.
  explicit TailHub(std::function<void()> on_change, size_t queue_capacity = 16384);

  // Validates `request` (INVALID_ARGUMENT naming the field) and starts a
  // subscription. `uid` restricts it to one user's producers.
  Result<std::shared_ptr<TailSubscription>> Subscribe(const v1::TailRequest& request,
                                                      std::optional<uint32_t> uid);
  void Unsubscribe(const std::shared_ptr<TailSubscription>& subscription);
  size_t size() const;

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
  // Drain thread: the current subscriptions, re-copied only when they
  // changed (so an event costs no lock).
  const std::vector<std::shared_ptr<TailSubscription>>& Current();
  // Drain thread: hands the item `build` fills to every current
  // subscription `wants` accepts, built once, copied for all but the last
  // one, which takes it; nothing is built when no subscription wants it.
  template <typename Wants, typename Build>
  void Deliver(Wants&& wants, Build&& build);

  const std::function<void()> on_change_;
  const size_t queue_capacity_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<TailSubscription>> subscriptions_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> active_{false};
  std::vector<std::shared_ptr<TailSubscription>> current_;  // drain thread only
  uint64_t current_generation_ = ~0ULL;                     // drain thread only
  std::vector<TailSubscription*> wanting_;                  // Deliver's scratch
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_TAIL_HUB_H_
