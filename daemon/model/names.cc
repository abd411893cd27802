#include "model/session_record.h"
#include "model/span.h"

namespace optrace::daemon {

std::string_view SpanStatusName(SpanStatus status) {
  switch (status) {
    case SpanStatus::kOk: return "ok";
    case SpanStatus::kIncomplete: return "incomplete";
    case SpanStatus::kCompleteWithoutLaunch: return "complete_without_launch";
    case SpanStatus::kDuplicate: return "duplicate";
  }
  return "unknown";
}

std::string_view SessionStateName(SessionState state) {
  switch (state) {
    case SessionState::kRunning: return "running";
    case SessionState::kExited: return "exited";
    case SessionState::kCrashed: return "crashed";
  }
  return "unknown";
}

}  // namespace optrace::daemon
