// The options of `optrace steps` and `optrace why` that say which steps
// are slow or warm-up (v1::StepRules).
#ifndef OPTRACE_CLI_STEP_RULES_OPTIONS_H_
#define OPTRACE_CLI_STEP_RULES_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "cli_error.h"
#include "command_spec.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct StepRulesOptions {
  std::string slow_factor = "1.5";  // as typed
  uint32_t window = 20;
  uint32_t warmup = 3;
};

// Adds --slow-factor, --window and --warmup to `command`, bound to `options`.
void AddStepRulesOptions(CommandSpec& command, StepRulesOptions* options);

// The rules the options ask for, or a usage error naming the option.
std::variant<v1::StepRules, CliError> ToStepRules(const StepRulesOptions& options);

// "explicit steps (optrace.step)", "PyTorch profiler steps (ProfilerStep#N)", ...
std::string StepSourceText(v1::StepSource source);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_STEP_RULES_OPTIONS_H_
