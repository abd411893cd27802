// Producers' live levels: computes each producer's level word from the
// level policy, the SetLevel overrides (global, per label, per producer)
// and what live tails need, and writes it into the producer's segment,
// keeping it authoritative when somebody else wrote it.
#ifndef OPTRACE_DAEMON_DRAIN_LEVEL_CONTROL_H_
#define OPTRACE_DAEMON_DRAIN_LEVEL_CONTROL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "drain/daemon_counters.h"
#include "drain/producer_session.h"
#include "drain/tail_level_source.h"
#include "levels/level_policy.h"

namespace optrace::daemon {

// A live producer's level, as GetLevel shows it.
struct LiveProducer {
  SessionRecord record;
  abi::LevelValue live = abi::LevelValue::kOff;       // the level word we keep
  abi::LevelValue requested = abi::LevelValue::kOff;  // what the process asks for
  std::optional<abi::LevelValue> override_level;      // explicit SetLevel for it
  abi::LevelValue tail = abi::LevelValue::kOff;       // what live tails need
};

// A SetLevel: `level` for the scope (or, with `clear`, remove its
// overrides). At most one of session, pid, label; none = global default.
struct LevelChange {
  abi::LevelValue level = abi::LevelValue::kOff;
  bool clear = false;
  SessionId session = 0;
  uint32_t pid = 0;
  std::string label;
  std::optional<uint32_t> uid;  // callers limited to their own producers
};

// Thread rules: SetPolicy from any thread; everything else on the drain
// thread. `tails` (may be null) and `counters` must outlive it.
class LevelControl {
 public:
  LevelControl(std::shared_ptr<const LevelPolicy> policy, const TailLevelSource* tails,
               DaemonCounters* counters);

  // Replaces the policy; it takes effect at the next AdoptPolicy.
  void SetPolicy(std::shared_ptr<const LevelPolicy> policy);
  // Makes the last policy given to SetPolicy (or the constructor) the one
  // levels are computed from.
  void AdoptPolicy();

  // The global SetLevel default if one is set, else the policy's default.
  abi::LevelValue EffectiveDefaultLevel() const;
  // What the control segment announces to producers that do not exist
  // yet: the effective default, raised to what unscoped tails need.
  abi::LevelValue LevelForNewProducers() const;

  // `s`'s levels and their parts, as computed now.
  LiveProducer LevelsOf(ProducerSession& s) const;

  // Writes `s`'s live level into its segment when it changed or when the
  // word differs from what we wrote (counted as `level_tampered`, unless
  // the producer raised it to its own request); each write counts in
  // `level_writes`.
  void Update(ProducerSession& s);

  // Applies `change` to the overrides and to every live producer of
  // `sessions` in its scope (and of the caller's uid, when it has one);
  // returns how many of them now run at their computed level.
  uint32_t Apply(const LevelChange& change, SessionMap& sessions);

 private:
  const TailLevelSource* const tails_;
  DaemonCounters* const counters_;
  mutable std::mutex policy_mu_;
  std::shared_ptr<const LevelPolicy> policy_;            // GUARDED_BY(policy_mu_)
  std::shared_ptr<const LevelPolicy> active_policy_;     // the drain thread's copy
  std::optional<abi::LevelValue> global_level_;          // SetLevel without a scope
  std::map<std::string, abi::LevelValue> label_levels_;  // SetLevel --label
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_LEVEL_CONTROL_H_
