// `optrace status [--json]`: the daemon's health and loss counters.
#ifndef OPTRACE_CLI_STATUS_COMMAND_H_
#define OPTRACE_CLI_STATUS_COMMAND_H_

#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

struct StatusOptions {
  bool json = false;
};

// Prints the status; returns the exit code.
int RunStatus(Connection& connection, const StatusOptions& options);

// One fact per line ("daemon", "database", "producers", "ingest", "drops",
// "writer", "forward" when the daemon forwards to ClickHouse, "rejected",
// "level"), then the named counters that are not zero; losses and writer
// and forwarding errors in the problem tone when present.
std::string RenderStatus(const v1::GetStatusResponse& status, std::string_view address,
                         const Palette& palette);

// `optrace status`: its options, bound to StatusOptions it owns, and
// RunStatus.
CommandSpec DescribeStatusCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_STATUS_COMMAND_H_
