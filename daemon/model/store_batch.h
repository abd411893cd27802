// The unit of work between the drain thread and the storage writer: one
// batch is committed in one SQLite transaction, or shed as a whole.
#ifndef OPTRACE_DAEMON_MODEL_STORE_BATCH_H_
#define OPTRACE_DAEMON_MODEL_STORE_BATCH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/session_record.h"
#include "model/source_listing.h"
#include "model/span.h"

namespace optrace::daemon {

// How far a ring's events are reflected in the database once this batch
// commits: every event of ring `ring` below `position` is stored (as a span,
// an instant or a persisted half), counted, or was dropped. A restarted
// daemon resumes each ring at its committed position.
struct RingCursor {
  SessionId session = 0;
  uint32_t ring = 0;
  uint64_t position = 0;
};

// Identifies a persisted half to remove once it has been paired.
struct HalfOpKey {
  SessionId session = 0;
  uint64_t op_id = 0;
  uint8_t kind = 0;
};

struct SessionSpans {
  SessionId session = 0;
  std::vector<Span> spans;
};

struct SessionInstants {
  SessionId session = 0;
  std::vector<Instant> instants;
};

struct SessionHalves {
  SessionId session = 0;
  std::vector<HalfOp> halves;
};

struct StoreBatch {
  uint64_t sequence = 0;  // increasing, assigned by the drain thread
  std::vector<std::pair<StringId, std::string>> new_strings;  // dictionary additions
  std::vector<SessionRecord> sessions;                        // upserts, whole records
  std::vector<SessionSpans> spans;                            // appended
  std::vector<SessionInstants> instants;                      // appended
  std::vector<SessionHalves> halves_opened;                   // persisted unpaired halves
  std::vector<HalfOpKey> halves_closed;  // persisted halves now paired or finalised
  std::vector<RingCursor> cursors;       // upserts
  std::vector<SourceListing> listings;   // new listings of the sessions (inserted once)

  size_t SpanCount() const {
    size_t n = 0;
    for (const auto& s : spans) n += s.spans.size();
    return n;
  }
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_STORE_BATCH_H_
