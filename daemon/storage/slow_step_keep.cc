#include "storage/slow_step_keep.h"

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace optrace::daemon {
namespace {

// The last start time of a step that began at `start_ns` and ran `duration_ns`.
int64_t StepEnd(int64_t start_ns, uint64_t duration_ns) {
  int64_t end = 0;
  if (duration_ns > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
      __builtin_add_overflow(start_ns, static_cast<int64_t>(duration_ns), &end)) {
    return std::numeric_limits<int64_t>::max();
  }
  return end;
}

// "slow step 17 (2.4x the median before it)".
std::string SlowStepReason(uint64_t number, uint64_t duration_ns, uint64_t baseline_ns) {
  std::string reason = "slow step " + std::to_string(number);
  if (baseline_ns == 0) return reason;
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, " (%.1fx the median before it)",
                static_cast<double>(duration_ns) / static_cast<double>(baseline_ns));
  return reason + ratio;
}

}  // namespace

Result<SlowStepKeeps> SlowStepKeeps::Create(SqliteConnection& db, StepJudgeRules rules) {
  Result<StepSpanNames> names = StepSpanNames::Load(db);
  if (!names.ok()) return names.status();
  return SlowStepKeeps(std::move(names).value(), rules);
}

std::vector<KeepRequest> SlowStepKeeps::Keeps(const StoreBatch& batch) {
  names_.Note(batch.new_strings);
  std::vector<KeepRequest> keeps;
  if (!names_.any()) return keeps;
  for (const SessionSpans& entry : batch.spans) {
    for (const Span& span : entry.spans) {
      const std::optional<StepSpanKind> kind = names_.KindOf(span);
      if (!kind.has_value()) [[likely]]
        continue;
      const StepSpanKind source = *kind;
      auto [it, added] =
          sessions_.try_emplace(entry.session, SessionSteps{source, RollingStepJudge(rules_)});
      SessionSteps& steps = it->second;
      if (steps.source != source) {
        if (source == StepSpanKind::kProfiler) continue;  // explicit steps win
        steps = SessionSteps{source, RollingStepJudge(rules_)};
      }
      const StepVerdict verdict = steps.judge.Next(span.duration_ns);
      if (!verdict.slow) continue;
      keeps.push_back(
          {.session = entry.session,
           .first_ns = span.start_ns,
           .last_ns = StepEnd(span.start_ns, span.duration_ns),
           .last_duration_ns = 0,
           .reason = SlowStepReason(steps.judge.steps(), span.duration_ns, verdict.baseline_ns)});
    }
  }
  for (const SessionRecord& record : batch.sessions) {
    if (record.state != SessionState::kRunning) sessions_.erase(record.id);
  }
  return keeps;
}

}  // namespace optrace::daemon
