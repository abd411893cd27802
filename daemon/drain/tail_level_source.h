// What live tails need from producers' levels, as the drain loop sees it.
#ifndef OPTRACE_DAEMON_DRAIN_TAIL_LEVEL_SOURCE_H_
#define OPTRACE_DAEMON_DRAIN_TAIL_LEVEL_SOURCE_H_

#include "model/session_record.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// Thread-safe: called from the drain thread while tails come and go.
class TailLevelSource {
 public:
  virtual ~TailLevelSource() = default;
  // The most verbose level live tails need for the producer of `session`.
  virtual abi::LevelValue LevelFor(const SessionRecord& session) const = 0;
  // The same for producers that do not exist yet (tails without a scope).
  virtual abi::LevelValue LevelForNewProducers() const = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_TAIL_LEVEL_SOURCE_H_
