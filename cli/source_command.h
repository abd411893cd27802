// `optrace source SESSION OP_ID [--context N] [--json]`: the source
// listing around an op's call site, as its producer shipped it when the
// session was recorded (GetSource), with the op's line marked.
#ifndef OPTRACE_CLI_SOURCE_COMMAND_H_
#define OPTRACE_CLI_SOURCE_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct SourceOptions {
  uint64_t session_id = 0;
  uint64_t op_id = 0;
  uint32_t context = 0;  // lines before and after the op's; 0 = all that were shipped
  bool json = false;
};

// A header line "model.py:37 (session 7, op 123)" (", registered by the
// runtime" inside the brackets for a registered listing), then one line
// per listing line: a '>' gutter on the op's line, the line number right
// aligned (at least 4 columns), " | " and the text:
//   "   36 |     x = torch.relu(x)"
//   ">  37 |     return self.fc2(x)"
std::string RenderSource(const v1::GetSourceResponse& source, uint64_t session_id, uint64_t op_id);

// Prints the listing; returns the exit code (NOT_FOUND, with the daemon's
// message naming what is missing: 1; INVALID_ARGUMENT: 2).
int RunSource(Connection& connection, const SourceOptions& options);

// `optrace source`: its options, bound to SourceOptions it owns, and RunSource.
CommandSpec DescribeSourceCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_SOURCE_COMMAND_H_
