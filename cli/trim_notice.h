// The notice that a session's oldest spans were trimmed (the daemon's
// rolling window or retention's caps), so that a listing or an export of
// it is never taken for the whole session.
#ifndef OPTRACE_CLI_TRIM_NOTICE_H_
#define OPTRACE_CLI_TRIM_NOTICE_H_

#include <cstdint>
#include <string>

#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// Whether any of `session`'s stored spans or instants were trimmed.
bool WasTrimmed(const v1::Session& session);

// "session 3 trimmed before 2026-12-02 00:10:01.250: spans older than that
// are not stored (120000 spans trimmed)", with " but for 2 kept ranges
// (optrace keeps 3)" before the count when older keeps remain; "" when
// nothing of `session` was trimmed.
std::string TrimNotice(const v1::Session& session);

// Prints TrimNotice as one "optrace: ..." line on stderr, when there is one.
void PrintTrimNotice(const v1::Session& session);

// Asks the daemon for session `session_id` and prints its TrimNotice, for
// output that was made from its stored spans; prints nothing when the
// session cannot be read (the output stands on its own).
void PrintTrimNoticeOf(Connection& connection, uint64_t session_id);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TRIM_NOTICE_H_
