#include "live/tail_hub.h"

#include <algorithm>
#include <chrono>

#include "common/this_thread.h"
#include "live/live_record_conversions.h"
#include "wire/op_filter_check.h"
#include "wire/proto_convert.h"

namespace optrace::daemon {
namespace {

// How long the notifier naps after a round that resumed streams, so that
// streams parking one after the other are resumed together and the drain
// wakes it at most a few thousand times a second.
constexpr auto kCoalesce = std::chrono::microseconds(200);

}  // namespace

TailHub::TailHub(std::function<void()> on_change, size_t capacity)
    : on_change_(std::move(on_change)), records_(capacity) {
  labels_.Append("");  // label id 0: no label
  notifier_ = std::thread([this] { NotifierLoop(); });
}

TailHub::~TailHub() {
  {
    std::lock_guard<std::mutex> lock(wake_mu_);
    stop_ = true;
  }
  wake_cv_.notify_all();
  notifier_.join();
}

Result<std::shared_ptr<TailSubscription>> TailHub::Subscribe(const v1::TailRequest& request,
                                                             std::optional<uint32_t> uid) {
  TailSubscription::Filter f;
  if (request.level() != v1::LEVEL_UNSPECIFIED) {
    const auto level = LevelFromProto(request.level());
    if (!level)
      return Status::InvalidArgument("level " + std::to_string(request.level()) +
                                     " is not a level");
    f.level = *level;
  }
  if (!request.name_pattern().empty()) {
    auto pattern = CompilePattern(request.name_pattern(), "name_pattern");
    if (!pattern.ok()) return pattern.status();
    f.pattern = std::move(pattern).value();
  }
  if (request.target() != v1::TARGET_UNSPECIFIED) {
    const auto target = TargetFromProto(request.target());
    if (!target)
      return Status::InvalidArgument("target " + std::to_string(request.target()) +
                                     " is not a target");
    f.target = static_cast<uint8_t>(*target);
  }
  if (request.has_device()) {
    if (request.device() > 0xFFFF) return Status::InvalidArgument("device must be below 65536");
    f.device = static_cast<uint16_t>(request.device());
  }
  f.session = request.session_id();
  f.pid = request.pid();
  f.label = request.label();
  f.min_duration_ns = request.min_duration_ns();
  f.events = request.events() || !request.spans();
  f.spans = request.spans();
  f.uid = uid;
  std::shared_ptr<TailSubscription> subscription;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // It reads what is published from now on.
    subscription = std::make_shared<TailSubscription>(
        std::move(f), LiveSource{&records_, &strings_, &labels_}, records_.published());
    subscriptions_.push_back(subscription);
    RefreshWanted();
  }
  on_change_();
  return subscription;
}

void TailHub::Unsubscribe(const std::shared_ptr<TailSubscription>& subscription) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(subscriptions_, subscription);
    RefreshWanted();
  }
  on_change_();
}

void TailHub::RefreshWanted() {
  bool events = false, spans = false;
  for (const auto& s : subscriptions_) {
    events = events || s->filter().events;
    spans = spans || s->filter().spans;
  }
  events_wanted_.store(events, std::memory_order_relaxed);
  spans_wanted_.store(spans, std::memory_order_relaxed);
  active_.store(!subscriptions_.empty(), std::memory_order_relaxed);
}

size_t TailHub::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return subscriptions_.size();
}

abi::LevelValue TailHub::LevelFor(const SessionRecord& session) const {
  std::lock_guard<std::mutex> lock(mu_);
  abi::LevelValue level = abi::LevelValue::kOff;
  for (const auto& s : subscriptions_) {
    if (s->CoversProducer(session)) level = std::max(level, s->filter().level);
  }
  return level;
}

abi::LevelValue TailHub::LevelForNewProducers() const {
  std::lock_guard<std::mutex> lock(mu_);
  abi::LevelValue level = abi::LevelValue::kOff;
  for (const auto& s : subscriptions_) {
    const auto& f = s->filter();
    // Only tails that would cover any new producer: no scope, no uid limit.
    if (f.session == 0 && f.pid == 0 && f.label.empty() && !f.uid) level = std::max(level, f.level);
  }
  return level;
}

bool TailHub::Park(TailWaiter* waiter, uint64_t position, bool retry,
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

bool TailHub::Unpark(TailWaiter* waiter) {
  std::lock_guard<std::mutex> lock(park_mu_);
  const auto it = std::find_if(parked_.begin(), parked_.end(),
                               [&](const Parked& p) { return p.waiter == waiter; });
  if (it == parked_.end()) return false;
  parked_.erase(it);
  return true;
}

void TailHub::NotifierLoop() {
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
    // Streams wait for records past `seen`: sleep until the drain appends.
    // Seq_cst store, then the seq_cst load in published(); the drain does
    // the mirror image (Publish): either it sees sleeping_ and wakes us, or
    // we see its record here and do not sleep.
    sleeping_.store(true, std::memory_order_seq_cst);
    if (records_.published() == seen) {
      wake_cv_.wait_for(lock, retry ? std::chrono::milliseconds(10) : std::chrono::seconds(1),
                        [&] { return stop_ || !sleeping_.load(std::memory_order_relaxed); });
    }
    sleeping_.store(false, std::memory_order_relaxed);
  }
}

LiveRecord TailHub::RecordFor(const SessionRecord& session, LiveRecordType type) {
  if (session.id != last_session_) {
    // Once per change of session, not per record: sessions come in runs.
    auto [it, inserted] = label_ids_.try_emplace(session.label, 0);
    if (inserted) it->second = labels_.Append(session.label);
    last_session_ = session.id;
    last_label_ = it->second;
  }
  LiveRecord r;
  r.type = type;
  r.session = session.id;
  r.pid = session.pid;
  r.uid = session.uid;
  r.label = last_label_;
  return r;
}

void TailHub::PublishStrings(StringId max_id, const StringDictionary& strings) {
  // Ids are dense (the dictionary hands them out in order): each is copied
  // once, the first time a record needs it.
  while (strings_.size() <= max_id) strings_.Append(strings.Text(strings_.size()));
}

void TailHub::Publish(const LiveRecord& record) {
  // Append's seq_cst store, then this seq_cst load: pairs with
  // NotifierLoop (see there).
  records_.Append(record);
  if (sleeping_.load(std::memory_order_seq_cst)) [[unlikely]] {
    std::lock_guard<std::mutex> lock(wake_mu_);
    sleeping_.store(false, std::memory_order_relaxed);
    wake_cv_.notify_one();
  }
}

void TailHub::OnHalf(const SessionRecord& session, const HalfOp& half,
                     std::optional<uint64_t> duration_ns, const StringDictionary& strings) {
  if (!events_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kHalf);
  HalfToLiveRecord(half, duration_ns, &r);
  PublishStrings(std::max({half.name, half.tag, half.srcloc}), strings);
  Publish(r);
}

void TailHub::OnInstant(const SessionRecord& session, const Instant& instant,
                        const StringDictionary& strings) {
  if (!events_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kInstant);
  InstantToLiveRecord(instant, &r);
  PublishStrings(std::max(instant.name, instant.tag), strings);
  Publish(r);
}

void TailHub::OnSpan(const SessionRecord& session, const Span& span,
                     const StringDictionary& strings) {
  if (!spans_wanted_.load(std::memory_order_relaxed)) return;
  LiveRecord r = RecordFor(session, LiveRecordType::kSpan);
  SpanToLiveRecord(span, &r);
  PublishStrings(std::max({span.name, span.tag, span.srcloc}), strings);
  Publish(r);
}

}  // namespace optrace::daemon
