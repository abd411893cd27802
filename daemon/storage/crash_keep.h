// The crash trigger of keeps: a session that a batch ends as crashed keeps
// the ops it left open and the window before the crash, so that its last
// trim leaves what a post-mortem reads.
#ifndef OPTRACE_DAEMON_STORAGE_CRASH_KEEP_H_
#define OPTRACE_DAEMON_STORAGE_CRASH_KEEP_H_

#include <cstdint>
#include <vector>

#include "model/keep.h"
#include "model/store_batch.h"

namespace optrace::daemon {

// The reason of a crash keep, as `optrace keeps` shows it.
inline constexpr const char* kCrashKeepReason = "crash";

// One keep (KeepRequest, for SpanStore's one recording path) per session
// that `batch` ends as crashed: from `keep_before_ns` before its end, or
// from the start of the earliest op it left open (an incomplete span of
// the batch) when that is earlier, to its end. None when keep_before_ns
// is 0. Thread rules: pure.
std::vector<KeepRequest> CrashKeeps(const StoreBatch& batch, int64_t keep_before_ns);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_STORAGE_CRASH_KEEP_H_
