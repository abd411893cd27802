#include "levels/level_policy.h"

#include <re2/re2.h>

#include <algorithm>

namespace optrace::daemon {

struct LevelPolicy::CompiledRule {
  std::unique_ptr<re2::RE2> pattern;
  abi::LevelValue level;
};

Result<std::shared_ptr<const LevelPolicy>> LevelPolicy::Create(
    abi::LevelValue default_level, const std::vector<LevelRule>& rules) {
  std::vector<CompiledRule> compiled;
  for (size_t i = 0; i < rules.size(); ++i) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<re2::RE2>(rules[i].label_pattern, options);
    if (!re->ok()) {
      return Status::InvalidArgument("level_rule[" + std::to_string(i) + "].label '" +
                                     rules[i].label_pattern + "' is not a valid pattern: " +
                                     re->error());
    }
    compiled.push_back(CompiledRule{std::move(re), rules[i].level});
  }
  return std::shared_ptr<const LevelPolicy>(new LevelPolicy(default_level, std::move(compiled)));
}

LevelPolicy::LevelPolicy(abi::LevelValue default_level, std::vector<CompiledRule> rules)
    : default_level_(default_level), rules_(std::move(rules)) {}

LevelPolicy::~LevelPolicy() = default;

abi::LevelValue LevelPolicy::LevelForLabel(const std::string& label) const {
  abi::LevelValue level = default_level_;
  for (const CompiledRule& r : rules_) {
    if (re2::RE2::FullMatch(label, *r.pattern)) level = std::max(level, r.level);
  }
  return level;
}

abi::LevelValue ComputeLiveLevel(abi::LevelValue requested, abi::LevelValue policy,
                                 const std::optional<abi::LevelValue>& override_level,
                                 abi::LevelValue tails) {
  const abi::LevelValue base = override_level ? *override_level : std::max(requested, policy);
  return std::max(base, tails);
}

}  // namespace optrace::daemon
