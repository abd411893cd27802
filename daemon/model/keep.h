// Keeps: ranges of a session that its rolling window and retention's caps
// never trim (only deleting the whole session removes them), and the
// request every trigger (an RPC, a crash, a latency rule) records one with.
#ifndef OPTRACE_DAEMON_MODEL_KEEP_H_
#define OPTRACE_DAEMON_MODEL_KEEP_H_

#include <cstdint>
#include <string>

#include "model/span.h"

namespace optrace::daemon {

// Asks to keep a range of `session`, in span start time: either the closed
// range [first_ns, last_ns] (when last_duration_ns is 0), or the
// last_duration_ns before the session's newest span start.
struct KeepRequest {
  SessionId session = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  int64_t last_duration_ns = 0;
  std::string reason;  // why, as a person reads it ("crash", "slow: step")

  bool operator==(const KeepRequest&) const = default;
};

// One stored keep: a closed range [first_ns, last_ns] of span start times.
// Overlapping or adjacent keeps of a session are merged into one, whose
// reason lists theirs.
struct KeepRecord {
  SessionId session = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  std::string reason;
  // Page data bytes of the session's pages that overlap the range, measured
  // when it was recorded or last merged: what it holds against its budgets.
  uint64_t bytes = 0;
  int64_t created_ns = 0;  // wall clock of the first keep merged into it

  bool operator==(const KeepRecord&) const = default;
};

// A latency rule of the config ([[keep_rule]]): an op named `name` (and
// tagged `tag`, unless "") slower than `slower_than_ns` keeps the window
// around it (keep_before before its start, keep_after after its end).
struct KeepRule {
  std::string name;
  std::string tag;
  int64_t slower_than_ns = 0;

  bool operator==(const KeepRule&) const = default;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_KEEP_H_
