#include "storage/latency_keep.h"

#include <algorithm>
#include <limits>

namespace optrace::daemon {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > std::numeric_limits<int64_t>::max() - b)
    return std::numeric_limits<int64_t>::max();
  if (b < 0 && a < std::numeric_limits<int64_t>::min() - b)
    return std::numeric_limits<int64_t>::min();
  return a + b;
}

}  // namespace

LatencyKeepRules::LatencyKeepRules(std::vector<KeepRule> rules, int64_t keep_before_ns,
                                   int64_t keep_after_ns)
    : keep_before_ns_(keep_before_ns), keep_after_ns_(keep_after_ns) {
  for (KeepRule& rule : rules) rules_.push_back({.rule = std::move(rule), .tag_id = 0});
}

std::vector<std::string> LatencyKeepRules::RuleStrings() const {
  std::vector<std::string> strings;
  for (const Compiled& compiled : rules_) {
    strings.push_back(compiled.rule.name);
    if (!compiled.rule.tag.empty()) strings.push_back(compiled.rule.tag);
  }
  return strings;
}

void LatencyKeepRules::NoteStrings(std::span<const std::pair<StringId, std::string>> strings) {
  if (rules_.empty()) return;
  for (const auto& [id, text] : strings) {
    for (size_t i = 0; i < rules_.size(); ++i) {
      if (rules_[i].rule.name == text) {
        std::vector<size_t>* found = by_name_.Find(id);
        if (found == nullptr) found = &by_name_.Insert(id, {});
        if (std::find(found->begin(), found->end(), i) == found->end()) found->push_back(i);
      }
      if (!rules_[i].rule.tag.empty() && rules_[i].rule.tag == text) rules_[i].tag_id = id;
    }
  }
}

std::vector<KeepRequest> LatencyKeepRules::Keeps(const StoreBatch& batch) {
  std::vector<KeepRequest> keeps;
  if (by_name_.size() == 0) return keeps;
  for (const SessionSpans& entry : batch.spans) {
    const size_t first_of_session = keeps.size();
    for (const Span& span : entry.spans) {
      const std::vector<size_t>* matching = by_name_.Find(span.name);
      if (matching == nullptr || span.status != SpanStatus::kOk) [[likely]]
        continue;
      for (size_t index : *matching) {
        const Compiled& rule = rules_[index];
        if (span.duration_ns <= static_cast<uint64_t>(rule.rule.slower_than_ns)) continue;
        if (!rule.rule.tag.empty() && (rule.tag_id == 0 || span.tag != rule.tag_id)) continue;
        const int64_t end_ns = SaturatingAdd(
            span.start_ns, static_cast<int64_t>(std::min<uint64_t>(
                               span.duration_ns, std::numeric_limits<int64_t>::max())));
        KeepRequest keep{.session = entry.session,
                         .first_ns = SaturatingAdd(span.start_ns, -keep_before_ns_),
                         .last_ns = SaturatingAdd(end_ns, keep_after_ns_),
                         .last_duration_ns = 0,
                         .reason = "slow: " + rule.rule.name};
        // Spans of a batch come mostly in start order: a match that
        // overlaps the session's last request joins it, so that a burst of
        // slow ops is one keep (one transaction), not one each.
        if (keeps.size() > first_of_session && keeps.back().reason == keep.reason &&
            keep.first_ns <= keeps.back().last_ns && keeps.back().first_ns <= keep.last_ns) {
          keeps.back().first_ns = std::min(keeps.back().first_ns, keep.first_ns);
          keeps.back().last_ns = std::max(keeps.back().last_ns, keep.last_ns);
        } else {
          keeps.push_back(std::move(keep));
        }
        break;
      }
    }
  }
  return keeps;
}

}  // namespace optrace::daemon
