// What a tail reads: the live records and the tables that resolve their
// ids, all owned by the TailHub, which outlives every reader.
#ifndef OPTRACE_DAEMON_LIVE_LIVE_SOURCE_H_
#define OPTRACE_DAEMON_LIVE_LIVE_SOURCE_H_

#include "live/broadcast_buffer.h"
#include "live/published_strings.h"

namespace optrace::daemon {

struct LiveSource {
  const BroadcastBuffer* records = nullptr;
  const PublishedStrings* strings = nullptr;  // daemon string ids
  const PublishedStrings* labels = nullptr;   // LiveRecord::label
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_LIVE_SOURCE_H_
