#include "api/tail_hub.h"

#include <re2/re2.h>

#include <algorithm>

#include "api/proto_convert.h"
#include "api/span_filter.h"

namespace optrace::daemon {
namespace {

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);

v1::LiveEvent::Kind KindToProto(uint8_t kind) {
  switch (kind) {
    case 1:
      return v1::LiveEvent::KIND_LAUNCH;
    case 2:
      return v1::LiveEvent::KIND_COMPLETE;
    case 3:
      return v1::LiveEvent::KIND_MARK;
    case 4:
      return v1::LiveEvent::KIND_COUNTER;
    default:
      return v1::LiveEvent::KIND_UNSPECIFIED;
  }
}

void FillEventHeader(const SessionRecord& session, v1::LiveEvent* e) {
  e->set_session_id(session.id);
  e->set_pid(session.pid);
  e->set_label(session.label);
}

}  // namespace

TailSubscription::TailSubscription(Filter filter, size_t capacity)
    : filter_(std::move(filter)), capacity_(capacity) {}

TailSubscription::~TailSubscription() = default;

bool TailSubscription::CoversProducer(const SessionRecord& s) const {
  if (filter_.uid && *filter_.uid != s.uid) return false;
  if (filter_.session != 0 && filter_.session != s.id) return false;
  if (filter_.pid != 0 && filter_.pid != s.pid) return false;
  if (!filter_.label.empty() && filter_.label != s.label) return false;
  return true;
}

bool TailSubscription::NameMatches(StringId name, StringId tag, const StringDictionary& strings) {
  if (filter_.pattern == nullptr) return true;
  for (StringId id : {name, tag}) {
    auto [it, inserted] = match_cache_.try_emplace(id, false);
    if (inserted) it->second = re2::RE2::PartialMatch(strings.Text(id), *filter_.pattern);
    if (it->second) return true;
  }
  return false;
}

void TailSubscription::Push(v1::TailResponse item) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= capacity_) {
      wake = skipped_++ == 0;  // a slow client never slows the drain
    } else {
      // The stream's thread takes the whole queue when it wakes: only the
      // first item after it emptied needs to wake it.
      wake = queue_.empty() && skipped_ == 0;
      queue_.push_back(std::move(item));
    }
  }
  if (wake) ready_.notify_one();
}

void TailSubscription::Pop(std::vector<v1::TailResponse>* out, uint64_t* skipped,
                           std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  ready_.wait_for(lock, timeout, [&] { return !queue_.empty() || skipped_ > 0; });
  out->assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  *skipped = std::exchange(skipped_, 0);
}

TailHub::TailHub(std::function<void()> on_change, size_t queue_capacity)
    : on_change_(std::move(on_change)), queue_capacity_(queue_capacity) {}

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
  if (request.target() < v1::TARGET_UNSPECIFIED || request.target() > v1::TARGET_OTHER) {
    return Status::InvalidArgument("target " + std::to_string(request.target()) +
                                   " is not a target");
  }
  f.target = static_cast<uint8_t>(request.target());  // TARGET_CPU == abi kCpu, etc.
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
  auto subscription = std::make_shared<TailSubscription>(std::move(f), queue_capacity_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    subscriptions_.push_back(subscription);
    active_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  on_change_();
  return subscription;
}

void TailHub::Unsubscribe(const std::shared_ptr<TailSubscription>& subscription) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(subscriptions_, subscription);
    active_.store(!subscriptions_.empty(), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  on_change_();
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

const std::vector<std::shared_ptr<TailSubscription>>& TailHub::Current() {
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (generation != current_generation_) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = subscriptions_;
    current_generation_ = generation;
  }
  return current_;
}

template <typename Wants, typename Build>
void TailHub::Deliver(Wants&& wants, Build&& build) {
  wanting_.clear();
  for (const auto& sub : Current()) {
    if (wants(*sub)) wanting_.push_back(sub.get());
  }
  if (wanting_.empty()) return;
  v1::TailResponse item;
  build(&item);
  for (size_t i = 0; i + 1 < wanting_.size(); ++i) wanting_[i]->Push(item);
  wanting_.back()->Push(std::move(item));
}

void TailHub::OnHalf(const SessionRecord& session, const HalfOp& half,
                     std::optional<uint64_t> duration_ns, const StringDictionary& strings) {
  Deliver(
      [&](TailSubscription& sub) {
        const auto& f = sub.filter();
        if (!f.events || f.level < abi::LevelValue::kTrace || !sub.CoversProducer(session))
          return false;
        if (f.target != 0 && f.target != half.target) return false;
        if (f.device && *f.device != half.device) return false;
        // With a minimum duration only COMPLETEs known to be long enough
        // are shown.
        if (f.min_duration_ns != 0 && (!duration_ns || *duration_ns < f.min_duration_ns)) {
          return false;
        }
        return sub.NameMatches(half.name, half.tag, strings);
      },
      [&](v1::TailResponse* item) {
        v1::LiveEvent* e = item->mutable_event();
        FillEventHeader(session, e);
        e->set_kind(KindToProto(half.kind));
        e->set_op_id(half.op_id);
        e->set_parent_op_id(half.parent_op_id);
        e->set_name(strings.Text(half.name));
        e->set_tag(strings.Text(half.tag));
        e->set_source_location(strings.Text(half.srcloc));
        e->mutable_device()->set_target(TargetToProto(half.target));
        e->mutable_device()->set_ordinal(half.device);
        e->mutable_device()->set_stream(half.stream);
        e->set_unix_ns(half.ts_ns);
        e->set_thread(half.tid);
        if (half.has_device_ns) e->set_device_duration_ns(half.device_ns);
        e->set_level(v1::LEVEL_TRACE);
        if (duration_ns) e->set_duration_ns(*duration_ns);
      });
}

void TailHub::OnInstant(const SessionRecord& session, const Instant& instant,
                        const StringDictionary& strings) {
  Deliver(
      [&](TailSubscription& sub) {
        const auto& f = sub.filter();
        if (!f.events || static_cast<uint8_t>(f.level) < instant.level ||
            !sub.CoversProducer(session) || f.min_duration_ns != 0 || f.target != 0 || f.device) {
          return false;
        }
        return sub.NameMatches(instant.name, instant.tag, strings);
      },
      [&](v1::TailResponse* item) {
        v1::LiveEvent* e = item->mutable_event();
        FillEventHeader(session, e);
        e->set_kind(KindToProto(instant.kind));
        e->set_parent_op_id(instant.parent_op_id);
        e->set_name(strings.Text(instant.name));
        e->set_tag(strings.Text(instant.tag));
        e->set_unix_ns(instant.ts_ns);
        e->set_thread(instant.tid);
        if (instant.kind != kMark) e->set_value(instant.value);
        e->set_level(LevelToProto(static_cast<abi::LevelValue>(instant.level)));
      });
}

void TailHub::OnSpan(const SessionRecord& session, const Span& span,
                     const StringDictionary& strings) {
  Deliver(
      [&](TailSubscription& sub) {
        const auto& f = sub.filter();
        if (!f.spans || f.level < abi::LevelValue::kTrace || !sub.CoversProducer(session))
          return false;
        if (f.target != 0 && f.target != span.target) return false;
        if (f.device && *f.device != span.device) return false;
        if (span.duration_ns < f.min_duration_ns) return false;
        return sub.NameMatches(span.name, span.tag, strings);
      },
      [&](v1::TailResponse* item) {
        ToProto(
            span, session.id, [&](StringId id) -> const std::string& { return strings.Text(id); },
            item->mutable_span());
      });
}

}  // namespace optrace::daemon
