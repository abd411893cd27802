// `optrace why SESSION STEP [--baseline STEP] [rules] [--json]`: why a step
// took longer than its baseline, as the ops whose self time grew.
#ifndef OPTRACE_CLI_WHY_COMMAND_H_
#define OPTRACE_CLI_WHY_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "optrace/v1/optrace.pb.h"
#include "step_rules_options.h"

namespace optrace::cli {

struct WhyOptions {
  uint64_t session_id = 0;
  uint64_t step = 0;
  uint64_t baseline = 0;
  bool baseline_given = false;
  StepRulesOptions rules;
  bool json = false;
};

// The explanation: a line with the step's time against its baseline, then
// EXTRA, SHARE, CUMUL, SELF, BASELINE and OP per op, where the ops after
// those that name 80% of the extra and under 1% of it each are summed in
// one line. `width` as Table::Render.
std::string RenderWhy(const v1::ExplainStepResponse& why, size_t width);

// Prints the explanation; returns the exit code.
int RunWhy(Connection& connection, const WhyOptions& options);

// `optrace why`: its options, bound to WhyOptions it owns, and RunWhy.
CommandSpec DescribeWhyCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_WHY_COMMAND_H_
