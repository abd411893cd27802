// Source listings: the text around the op sites of a session, captured by
// the producer with its own rights (docs/abi.md "Listings") or registered
// by its runtime, so that a stored session still reads right after the code
// changed or is gone.
#ifndef OPTRACE_DAEMON_MODEL_SOURCE_LISTING_H_
#define OPTRACE_DAEMON_MODEL_SOURCE_LISTING_H_

#include <cstdint>
#include <string>

#include "model/span.h"

namespace optrace::daemon {

// Lines [first_line, first_line + line count) of `file`, as a session's
// producer shipped them. `file` is spelt as the session's source locations
// spell it ("file:line" names file "file"), or is the name a runtime
// registered (an IR dump, say); `text` is sanitized UTF-8, lines separated
// by '\n' (no trailing one required).
struct SourceListing {
  SessionId session = 0;
  std::string file;
  uint32_t first_line = 1;
  bool registered = false;  // registered by the runtime rather than read from a file
  std::string text;
};

// A session's listing counters. Totals for the whole session, carried in
// its SessionRecord like the drops.
struct SessionListingCounts {
  uint64_t shipped = 0;  // listings handed to the store (after de-duplication and caps)
  uint64_t refused = 0;  // producer: locations whose file it could not read
  uint64_t dropped = 0;  // producer: listings that found the segment's listing area full
  uint64_t capped = 0;   // daemon: listings left out by the session's caps
  bool operator==(const SessionListingCounts&) const = default;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_SOURCE_LISTING_H_
