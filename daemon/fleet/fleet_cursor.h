// FleetCursor: where a fleet QueryOps page ended, as the opaque text handed
// to the client and back.
#ifndef OPTRACE_DAEMON_FLEET_FLEET_CURSOR_H_
#define OPTRACE_DAEMON_FLEET_FLEET_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// The key of the last span of a fleet page, in the order fleet pages use:
// (start, node, store id, page id, place in the page). The key is unique
// per span, so the next page starts strictly after it. Value type.
struct FleetCursor {
  int64_t start_ns = 0;
  std::string node;
  uint64_t store_id = 0;
  uint64_t page_id = 0;
  uint32_t page_index = 0;

  bool operator==(const FleetCursor&) const = default;
};

// "fleet:<start>:<store>:<page>:<index>:<node in hex>". Clients treat it as
// opaque; the prefix tells it from a session's cursor.
std::string EncodeFleetCursor(const FleetCursor& cursor);

// Parses what EncodeFleetCursor made. `text_untrusted` comes from a
// client: anything else (another shape, a number out of range, bad hex, a
// node longer than 255 bytes) is kInvalidArgument, "cursor ... is not one
// this daemon returned for a fleet query".
Result<FleetCursor> DecodeFleetCursor(std::string_view text_untrusted);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FLEET_FLEET_CURSOR_H_
