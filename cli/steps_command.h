// `optrace steps SESSION [--slow-factor K] [--window N] [--warmup N]
// [--limit N] [--json]`: a session's steps (iterations of a training or
// serving loop), one line each with its duration, ops, top op by self
// time and slow mark, then percentiles of step time.
#ifndef OPTRACE_CLI_STEPS_COMMAND_H_
#define OPTRACE_CLI_STEPS_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "step_rules_options.h"

namespace optrace::cli {

struct StepsOptions {
  uint64_t session_id = 0;
  StepRulesOptions rules;
  uint32_t limit = 0;  // 0 = the daemon's most
  bool json = false;
};

// The steps as a table: STEP, START (after the first listed step), TIME,
// OPS, TOP OP (SELF) and a slow or warm-up mark; then one line with the
// count of steps, slow ones and the percentiles. `width` as Table::Render.
std::string RenderStepsTable(const v1::GetStepsResponse& steps, size_t width);

// Prints the steps; returns the exit code.
int RunSteps(Connection& connection, const StepsOptions& options);

// `optrace steps`: its options, bound to StepsOptions it owns, and RunSteps.
CommandSpec DescribeStepsCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_STEPS_COMMAND_H_
