// A failed RPC as one line for the user and an exit code: never a raw gRPC
// dump. UNAVAILABLE (no daemon) says how to start one, exit 2; NOT_FOUND
// of a session says "no session N; see optrace sessions", exit 1;
// INVALID_ARGUMENT repeats the daemon's message, exit 2. UNAVAILABLE from
// a daemon whose ClickHouse failed a fleet query (its message starts with
// kClickHouseErrorPrefix, docs/api.md) and FAILED_PRECONDITION (fleet
// queries without ClickHouse) and RESOURCE_EXHAUSTED (a keep over its
// budget) repeat the daemon's message, exit 1.
#ifndef OPTRACE_CLI_RPC_ERROR_H_
#define OPTRACE_CLI_RPC_ERROR_H_

#include <grpcpp/support/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli_error.h"

namespace optrace::cli {

// How the daemon's messages about its ClickHouse begin.
inline constexpr std::string_view kClickHouseErrorPrefix = "ClickHouse at ";

// "no daemon at <address>; start one with `optraced` or `systemctl start
// optraced`".
std::string NoDaemonMessage(std::string_view address);

// The error for `status` (REQUIRES: not ok) of a call to the daemon at
// `address`. `session_id`, when the call was about one session, names it
// in the NOT_FOUND message, unless the daemon's message says the session
// "has no" thing asked for (a step); otherwise the daemon's message is used.
CliError ErrorFromRpc(const grpc::Status& status, std::string_view address,
                      std::optional<uint64_t> session_id = std::nullopt);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_RPC_ERROR_H_
