// QueryCursor: where a QueryOps page ended, as the opaque text handed to
// the client and back.
#ifndef OPTRACE_DAEMON_QUERY_QUERY_CURSOR_H_
#define OPTRACE_DAEMON_QUERY_QUERY_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// The (start, op id) of the last span a page returned, and how many spans
// with exactly that (start, op id) the client has received so far: spans
// may share both (a duplicate LAUNCH at the same instant), and the next
// page must skip those already sent, not all of them. Value type.
struct QueryCursor {
  int64_t start_ns = 0;
  uint64_t op_id = 0;
  uint64_t sent_at_key = 0;  // >= 1 in a cursor the daemon made
};

// "<start_ns>:<op_id>:<sent_at_key>" in decimal. Clients treat it as opaque.
std::string EncodeCursor(const QueryCursor& cursor);

// Parses what EncodeCursor made. `text_untrusted` comes from a client:
// anything else (another shape, a number out of range, trailing bytes) is
// kInvalidArgument, "cursor ... is not one this daemon returned".
Result<QueryCursor> DecodeCursor(std::string_view text_untrusted);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_QUERY_CURSOR_H_
