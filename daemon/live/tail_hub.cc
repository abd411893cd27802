#include "live/tail_hub.h"

#include <re2/re2.h>  // TailSubscription::Filter owns a compiled pattern

#include <algorithm>
#include <utility>

#include "live/tail_request.h"

namespace optrace::daemon {

TailHub::TailHub(size_t capacity)
    : records_(capacity), parking_(records_), publisher_(records_, strings_, labels_, parking_) {
  labels_.Append("");  // label id 0: no label
}

Result<std::shared_ptr<TailSubscription>> TailHub::Subscribe(const v1::TailRequest& request,
                                                             std::optional<uint32_t> uid) {
  Result<TailSubscription::Filter> filter = TailFilterFromRequest(request, uid);
  if (!filter.ok()) return filter.status();
  std::shared_ptr<TailSubscription> subscription;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // It reads what is published from now on.
    subscription = std::make_shared<TailSubscription>(std::move(filter).value(),
                                                      LiveSource{&records_, &strings_, &labels_},
                                                      records_.published());
    subscriptions_.push_back(subscription);
    RefreshWanted();
  }
  Changed();
  return subscription;
}

void TailHub::Unsubscribe(const std::shared_ptr<TailSubscription>& subscription) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(subscriptions_, subscription);
    RefreshWanted();
  }
  Changed();
}

void TailHub::RefreshWanted() {
  bool events = false, spans = false;
  for (const auto& s : subscriptions_) {
    events = events || s->filter().events;
    spans = spans || s->filter().spans;
  }
  publisher_.SetWanted(events, spans);
}

void TailHub::Changed() const {
  if (on_change_) on_change_();
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

}  // namespace optrace::daemon
