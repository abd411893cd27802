#include "storage/keep_ranges.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

namespace optrace::daemon {
namespace {

// Closed ranges that overlap, or where one ends just before the other starts.
bool OverlapsOrTouches(const KeepRecord& a, const KeepRecord& b) {
  const auto touches_before = [](int64_t last, int64_t first) {
    return last == std::numeric_limits<int64_t>::max() || last + 1 >= first;
  };
  return touches_before(a.last_ns, b.first_ns) && touches_before(b.last_ns, a.first_ns);
}

void AddReason(std::string_view reason, std::string* reasons) {
  if (reason.empty() || reasons->size() >= kMaxKeepReasonBytes) return;
  size_t from = 0;
  while (from <= reasons->size()) {
    const size_t end = std::min(reasons->find("; ", from), reasons->size());
    if (std::string_view(*reasons).substr(from, end - from) == reason) return;
    from = end + 2;
  }
  if (!reasons->empty()) *reasons += "; ";
  *reasons += reason;
}

std::string Budget(std::string_view what, uint64_t max_bytes, uint64_t held, uint64_t bytes) {
  return std::string(what) + " keep budget of " + std::to_string(max_bytes) + " bytes (" +
         std::to_string(held) + " kept, " + std::to_string(bytes) + " more asked)";
}

}  // namespace

KeepMerge MergeKeep(std::span<const KeepRecord> existing, const KeepRecord& added) {
  KeepMerge result{.merged = added, .absorbed = {}};
  // Taking one keep can make the union touch a neighbour: repeat until
  // nothing more joins (existing keeps are disjoint, so at most n rounds).
  std::vector<bool> taken(existing.size(), false);
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < existing.size(); ++i) {
      if (taken[i] || !OverlapsOrTouches(existing[i], result.merged)) continue;
      taken[i] = true;
      grew = true;
      result.merged.first_ns = std::min(result.merged.first_ns, existing[i].first_ns);
      result.merged.last_ns = std::max(result.merged.last_ns, existing[i].last_ns);
      result.merged.created_ns = std::min(result.merged.created_ns, existing[i].created_ns);
    }
  }
  std::vector<const KeepRecord*> members = {&added};
  for (size_t i = 0; i < existing.size(); ++i) {
    if (!taken[i]) continue;
    result.absorbed.push_back(i);
    members.push_back(&existing[i]);
  }
  std::stable_sort(members.begin(), members.end(), [](const KeepRecord* a, const KeepRecord* b) {
    return a->first_ns < b->first_ns;
  });
  result.merged.reason.clear();
  for (const KeepRecord* member : members) {
    // A merged keep's reason is itself a list: take its parts one by one.
    std::string_view rest = member->reason;
    while (!rest.empty()) {
      const size_t end = std::min(rest.find("; "), rest.size());
      AddReason(rest.substr(0, end), &result.merged.reason);
      rest.remove_prefix(std::min(end + 2, rest.size()));
    }
  }
  return result;
}

Status CheckKeepBudget(const KeepBudget& budget, const KeptBytes& held, uint64_t bytes,
                       SessionId session, uint32_t uid) {
  const std::string refused = "keep of session " + std::to_string(session) + " refused: ";
  if (budget.session_max_bytes > 0 && held.session + bytes > budget.session_max_bytes) {
    return Status::ResourceExhausted(
        refused + Budget("over the per-session", budget.session_max_bytes, held.session, bytes));
  }
  if (budget.uid_max_bytes > 0 && held.uid + bytes > budget.uid_max_bytes) {
    return Status::ResourceExhausted(refused + Budget("over uid " + std::to_string(uid) + "'s",
                                                      budget.uid_max_bytes, held.uid, bytes));
  }
  if (budget.database_max_bytes > 0 && held.database + bytes > budget.database_max_bytes) {
    return Status::ResourceExhausted(refused +
                                     Budget("over the database's (half of retention_max_bytes)",
                                            budget.database_max_bytes, held.database, bytes));
  }
  return Status::Ok();
}

}  // namespace optrace::daemon
