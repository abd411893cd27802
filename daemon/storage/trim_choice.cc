#include "storage/trim_choice.h"

#include <algorithm>

namespace optrace::daemon {
namespace {

bool Overlaps(const PageExtent& page, std::span<const TimeRange> ranges) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const TimeRange& range) {
    return page.first_start_ns <= range.last_ns && range.first_ns <= page.last_start_ns;
  });
}

}  // namespace

TrimChoice ChoosePagesToTrim(std::span<const PageExtent> oldest_first, uint64_t session_bytes,
                             int64_t newest_start_ns, const TrimGoal& goal,
                             std::span<const TimeRange> untouchable, size_t max_pages) {
  TrimChoice choice;
  uint64_t bytes_left = session_bytes;
  for (const PageExtent& page : oldest_first) {
    if (choice.pages.size() >= max_pages || page.last_start_ns >= newest_start_ns) break;
    const bool too_old = page.last_start_ns < goal.drop_before_ns;
    if (!too_old && bytes_left <= goal.max_bytes) break;
    if (Overlaps(page, untouchable)) {
      ++choice.passed_over;
      continue;
    }
    choice.pages.push_back(page);
    bytes_left -= std::min(bytes_left, page.bytes);
  }
  return choice;
}

}  // namespace optrace::daemon
