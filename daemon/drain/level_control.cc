#include "drain/level_control.h"

#include <algorithm>

namespace optrace::daemon {

LevelControl::LevelControl(std::shared_ptr<const LevelPolicy> policy, const TailLevelSource* tails,
                           DaemonCounters* counters)
    : tails_(tails), counters_(counters), policy_(policy), active_policy_(std::move(policy)) {}

void LevelControl::SetPolicy(std::shared_ptr<const LevelPolicy> policy) {
  std::lock_guard<std::mutex> lock(policy_mu_);
  policy_ = std::move(policy);
}

void LevelControl::AdoptPolicy() {
  std::lock_guard<std::mutex> lock(policy_mu_);
  active_policy_ = policy_;
}

abi::LevelValue LevelControl::EffectiveDefaultLevel() const {
  return global_level_.value_or(active_policy_->default_level());
}

abi::LevelValue LevelControl::LevelForNewProducers() const {
  const abi::LevelValue tails =
      tails_ != nullptr ? tails_->LevelForNewProducers() : abi::LevelValue::kOff;
  return std::max(EffectiveDefaultLevel(), tails);
}

LiveProducer LevelControl::LevelsOf(ProducerSession& s) const {
  LiveProducer p;
  p.record = s.record();
  const auto fields = s.segment().ReadProducerFields();
  p.requested =
      fields ? static_cast<abi::LevelValue>(fields->requested_level) : abi::LevelValue::kOff;
  p.override_level = s.override_level;
  if (!p.override_level) {
    if (auto it = label_levels_.find(s.record().label); it != label_levels_.end()) {
      p.override_level = it->second;
    }
  }
  p.tail = tails_ != nullptr ? tails_->LevelFor(s.record()) : abi::LevelValue::kOff;
  const abi::LevelValue policy =
      std::max(EffectiveDefaultLevel(), active_policy_->LevelForLabel(s.record().label));
  p.live = ComputeLiveLevel(p.requested, policy, p.override_level, p.tail);
  return p;
}

void LevelControl::Update(ProducerSession& s) {
  const LiveProducer levels = LevelsOf(s);
  const abi::LevelValue live = levels.live;
  const auto word = s.segment().ReadLevelWord();
  if (s.written_level == live && word == static_cast<uint32_t>(live)) return;
  // A producer may raise the word to its own request (SetLevel) before
  // our next cycle folds the request in: that is not tampering.
  const bool raised_to_request = word == static_cast<uint32_t>(levels.requested);
  if (s.written_level == live && word.has_value() && !raised_to_request) {
    // Someone else wrote the word: we keep the authoritative value.
    counters_->level_tampered.fetch_add(1);
  }
  if (s.segment().WriteLevel(live)) {
    s.written_level = live;
    counters_->level_writes.fetch_add(1);
  }
}

uint32_t LevelControl::Apply(const LevelChange& change, SessionMap& sessions) {
  const bool global = change.session == 0 && change.pid == 0 && change.label.empty();
  if (global) {
    global_level_ = change.clear ? std::nullopt : std::optional(change.level);
  } else if (!change.label.empty()) {
    if (change.clear) {
      label_levels_.erase(change.label);
    } else {
      label_levels_[change.label] = change.level;
    }
  }
  uint32_t reached = 0;
  for (auto& [id, s] : sessions) {
    if (s->finished()) continue;
    const SessionRecord& r = s->record();
    if (change.uid && *change.uid != r.uid) continue;
    const bool in_scope = global || (change.session != 0 && change.session == id) ||
                          (change.pid != 0 && change.pid == r.pid) ||
                          (!change.label.empty() && change.label == r.label);
    if (!in_scope) continue;
    if (change.session != 0 || change.pid != 0 || (!change.label.empty() && change.clear)) {
      s->override_level = change.clear ? std::nullopt : std::optional(change.level);
    }
    Update(*s);
    if (s->written_level == LevelsOf(*s).live) ++reached;
  }
  return reached;
}

}  // namespace optrace::daemon
