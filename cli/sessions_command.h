// `optrace sessions [--all] [--limit N] [--json]`: the sessions table;
// `optrace sessions show ID [--json]`: one session and its open ops.
#ifndef OPTRACE_CLI_SESSIONS_COMMAND_H_
#define OPTRACE_CLI_SESSIONS_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

struct SessionsOptions {
  bool all = false;    // ended sessions too
  uint32_t limit = 0;  // 0 = all
  bool json = false;
};

struct SessionShowOptions {
  uint64_t session_id = 0;
  bool json = false;
};

// Prints the sessions; returns the exit code.
int RunSessions(Connection& connection, const SessionsOptions& options);

// Prints one session; NOT_FOUND gives "no session N", exit 1.
int RunSessionShow(Connection& connection, const SessionShowOptions& options);

// The table: ID, LABEL, PID, EXECUTABLE (file name), START, DURATION (to
// `now_unix_ns` while running), OPS (spans), DROPS, STATE; "no sessions"
// hint when empty. `width` as Table::Render.
std::string RenderSessionsTable(const v1::ListSessionsResponse& sessions, bool all,
                                int64_t now_unix_ns, size_t width, const Palette& palette);

// The session's facts, one per line (its listing counters only when one
// is not 0), then its open ops, oldest first, in the style "rms_norm
// id=40029 gpu:0 open for 12.3 s".
std::string RenderSessionDetail(const v1::GetSessionResponse& response, int64_t now_unix_ns,
                                const Palette& palette);

// How long `session` ran: to its end, or to `now_unix_ns` while running.
uint64_t SessionDurationNs(const v1::Session& session, int64_t now_unix_ns);

// `optrace sessions` and `optrace sessions show`: their options, bound to
// options they own, and RunSessions / RunSessionShow.
CommandSpec DescribeSessionsCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_SESSIONS_COMMAND_H_
