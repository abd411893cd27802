#include "step_rules_options.h"

#include <charconv>
#include <cmath>

#include "exit_codes.h"

namespace optrace::cli {

void AddStepRulesOptions(CommandSpec& command, StepRulesOptions* options) {
  command
      .Add("--slow-factor", &options->slow_factor,
           "a step is slow past this many times the median of the steps before it (at least 1)")
      .ShowDefault();
  command.Add("--window", &options->window, "how many steps before it the median covers (1-1000)")
      .ShowDefault();
  command
      .Add("--warmup", &options->warmup,
           "the first steps, flagged as warm-up: never slow, left out of medians (0 = none)")
      .ShowDefault();
}

std::variant<v1::StepRules, CliError> ToStepRules(const StepRulesOptions& options) {
  const std::string& text = options.slow_factor;
  double factor = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(factor) ||
      factor < 1) {
    return CliError{kExitUsage, "--slow-factor: '" + text + "' is not a number of at least 1"};
  }
  if (options.window < 1 || options.window > 1000) {
    return CliError{kExitUsage,
                    "--window: " + std::to_string(options.window) + " is not from 1 to 1000"};
  }
  v1::StepRules rules;
  rules.set_slow_factor(factor);
  rules.set_window(options.window);
  rules.set_warmup(options.warmup);
  rules.set_warmup_none(options.warmup == 0);
  return rules;
}

std::string StepSourceText(v1::StepSource source) {
  switch (source) {
    case v1::STEP_SOURCE_EXPLICIT:
      return "explicit steps (optrace.step)";
    case v1::STEP_SOURCE_RANGE:
      return "ranges marked as steps (optrace run --nvtx --step-range)";
    case v1::STEP_SOURCE_PROFILER:
      return "PyTorch profiler steps (ProfilerStep#N)";
    case v1::STEP_SOURCE_OPTIMIZER:
      return "PyTorch optimizer steps (Optimizer.step#, first optimizer)";
    default:
      return "no steps";
  }
}

}  // namespace optrace::cli
