#include "rpc_error.h"

#include <fmt/core.h>

#include "exit_codes.h"

namespace optrace::cli {

std::string NoDaemonMessage(std::string_view address) {
  return fmt::format("no daemon at {}; start one with `optraced` or `systemctl start optraced`",
                     address);
}

CliError ErrorFromRpc(const grpc::Status& status, std::string_view address,
                      std::optional<uint64_t> session_id) {
  const std::string& message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // The daemon answered: its ClickHouse (fleet queries) is what failed.
      if (message.rfind(kClickHouseErrorPrefix, 0) == 0) {
        return {kExitFailure, fmt::format("fleet query failed: {}", message)};
      }
      return {kExitUsage, NoDaemonMessage(address)};
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return {kExitFailure, message};
    case grpc::StatusCode::NOT_FOUND:
      // "session 12 has no step 9 (...)": the session is there, something
      // in it is not, and the daemon's message says what.
      if (session_id && message.find(" has no ") == std::string::npos)
        return {kExitFailure, fmt::format("no session {}; see optrace sessions", *session_id)};
      return {kExitFailure, message};
    case grpc::StatusCode::INVALID_ARGUMENT:
      return {kExitUsage, message};
    case grpc::StatusCode::PERMISSION_DENIED:
      return {kExitFailure, fmt::format("not allowed: {}", message)};
    case grpc::StatusCode::UNAUTHENTICATED:
      return {kExitFailure,
              fmt::format("the daemon at {} does not know who you are: {}", address, message)};
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return {kExitFailure, fmt::format("the daemon at {} did not answer in time", address)};
    case grpc::StatusCode::UNIMPLEMENTED:
      return {kExitFailure,
              fmt::format("the daemon at {} does not serve this request; is it older than "
                          "this optrace?",
                          address)};
    default:
      return {kExitFailure, fmt::format("the daemon at {} failed: {}", address,
                                        message.empty() ? "no reason given" : message)};
  }
}

}  // namespace optrace::cli
