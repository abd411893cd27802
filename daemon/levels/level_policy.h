// The daemon's part of a producer's live level: the configured default and
// the label rules (RE2 patterns from the config file).
#ifndef OPTRACE_DAEMON_LEVELS_LEVEL_POLICY_H_
#define OPTRACE_DAEMON_LEVELS_LEVEL_POLICY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/daemon_config.h"
#include "optrace/abi.h"

namespace re2 {
class RE2;
}

namespace optrace::daemon {

// Immutable once built; thread-safe to read. Reloading the config builds a
// new one.
class LevelPolicy {
 public:
  // Fails naming the rule whose pattern does not compile.
  static Result<std::shared_ptr<const LevelPolicy>> Create(abi::LevelValue default_level,
                                                           const std::vector<LevelRule>& rules);
  ~LevelPolicy();

  abi::LevelValue default_level() const { return default_level_; }

  // The default, raised by every rule whose pattern matches `label` fully.
  abi::LevelValue LevelForLabel(const std::string& label) const;

 private:
  struct CompiledRule;
  LevelPolicy(abi::LevelValue default_level, std::vector<CompiledRule> rules);
  abi::LevelValue default_level_;
  std::vector<CompiledRule> rules_;
};

// A producer's live level from its parts, as the design defines it: the
// most verbose of what it asks for and the daemon's default and rules, or
// an explicit override (SetLevel for this producer) in place of those two;
// then raised to what live tails need. Attaching never makes a producer
// quieter than it asked to be, unless an explicit override says so.
abi::LevelValue ComputeLiveLevel(abi::LevelValue requested, abi::LevelValue policy,
                                 const std::optional<abi::LevelValue>& override_level,
                                 abi::LevelValue tails);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LEVELS_LEVEL_POLICY_H_
