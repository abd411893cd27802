// The bounds of a running session's rolling window: the daemon's default
// (keep_last, keep_last_bytes) or the session's own (SetWindow).
#ifndef OPTRACE_DAEMON_MODEL_WINDOW_LIMITS_H_
#define OPTRACE_DAEMON_MODEL_WINDOW_LIMITS_H_

#include <cstdint>

namespace optrace::daemon {

// 0 = no bound of that kind; both 0 keeps everything.
struct WindowLimits {
  // Keep the pages whose newest span started at most this long before the
  // session's newest span (not the clock: a session that went quiet, or
  // hangs, keeps its last window of activity).
  int64_t keep_last_ns = 0;
  uint64_t keep_last_bytes = 0;  // page data bytes per session

  bool enabled() const { return keep_last_ns > 0 || keep_last_bytes > 0; }
  bool operator==(const WindowLimits&) const = default;
};

// A session's own window, kept by the store (like SessionTrim, batches
// leave it alone). Not overridden: the daemon's default applies.
struct SessionWindow {
  bool overridden = false;
  WindowLimits limits;  // meaningful when overridden

  bool operator==(const SessionWindow&) const = default;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_WINDOW_LIMITS_H_
