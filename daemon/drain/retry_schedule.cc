#include "drain/retry_schedule.h"

#include <algorithm>

namespace optrace::daemon {

bool RetrySchedule::Failed(const std::string& name, uint64_t now_ns) {
  auto [it, inserted] = entries_.try_emplace(name);
  Entry& e = it->second;
  e.delay_ns = inserted ? delays_.first_ns : std::min(e.delay_ns * 2, delays_.most_ns);
  e.due_ns = now_ns + e.delay_ns;
  return inserted;
}

std::vector<std::string> RetrySchedule::Due(uint64_t now_ns) const {
  std::vector<std::string> due;
  for (const auto& [name, e] : entries_) {
    if (e.due_ns <= now_ns) due.push_back(name);
  }
  return due;
}

void RetrySchedule::RemoveIf(const std::function<bool(const std::string&)>& gone) {
  std::erase_if(entries_, [&](const auto& entry) { return gone(entry.first); });
}

}  // namespace optrace::daemon
