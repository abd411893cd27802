#include "storage/crash_keep.h"

#include <algorithm>
#include <limits>

namespace optrace::daemon {

std::vector<KeepRequest> CrashKeeps(const StoreBatch& batch, int64_t keep_before_ns) {
  std::vector<KeepRequest> keeps;
  if (keep_before_ns <= 0) return keeps;
  for (const SessionRecord& session : batch.sessions) {
    if (session.state != SessionState::kCrashed) continue;
    int64_t first_ns = session.end_ns > std::numeric_limits<int64_t>::min() + keep_before_ns
                           ? session.end_ns - keep_before_ns
                           : std::numeric_limits<int64_t>::min();
    for (const SessionSpans& entry : batch.spans) {
      if (entry.session != session.id) continue;
      for (const Span& span : entry.spans) {
        if (span.status == SpanStatus::kIncomplete) first_ns = std::min(first_ns, span.start_ns);
      }
    }
    keeps.push_back({.session = session.id,
                     .first_ns = first_ns,
                     .last_ns = session.end_ns,
                     .last_duration_ns = 0,
                     .reason = kCrashKeepReason});
  }
  return keeps;
}

}  // namespace optrace::daemon
