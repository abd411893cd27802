#include "steps_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <memory>

#include "cli_error.h"
#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"
#include "trim_notice.h"

namespace optrace::cli {

std::string RenderStepsTable(const v1::GetStepsResponse& steps, size_t width) {
  if (steps.steps().empty()) {
    return "no steps: record them with optrace.step() (Python), optrace::Step (C++) or\n"
           "optrace_step_begin/end (C), or run a PyTorch optimizer under optrace run --torch\n";
  }
  Table table({{"STEP", Align::kRight},
               {"START", Align::kRight},
               {"TIME", Align::kRight},
               {"OPS", Align::kRight},
               {"", Align::kLeft},
               {"TOP OP (SELF)", Align::kLeft, true}});
  const int64_t first = steps.steps(0).start_unix_ns();
  for (const v1::Step& step : steps.steps()) {
    // A trimmed step's ops are gone with its spans: only its time is kept.
    std::string top = step.trimmed() ? "trimmed" : step.top_op().empty() ? "-" : step.top_op();
    if (!step.top_op_tag().empty()) top += " [" + step.top_op_tag() + "]";
    if (!step.top_op().empty()) top += " " + FormatDuration(step.top_op_self_ns());
    std::string mark;
    if (step.slow()) {
      mark = fmt::format("slow ({} median)", FormatRatio(static_cast<double>(step.duration_ns()) /
                                                         static_cast<double>(step.baseline_ns())));
    } else if (step.warmup()) {
      mark = "warm-up";
    }
    table.AddRow({std::to_string(step.number()),
                  "+" + FormatDuration(static_cast<uint64_t>(step.start_unix_ns() - first)),
                  FormatDuration(step.duration_ns()),
                  step.trimmed() ? std::string("-") : std::to_string(step.ops()), std::move(mark),
                  std::move(top)});
  }
  std::string listed;
  if (static_cast<uint64_t>(steps.steps_size()) < steps.steps_total()) {
    listed = fmt::format(" (the last {} listed)", steps.steps_size());
  }
  std::string folded;
  if (steps.steps_folded() > 0) {
    folded = fmt::format("; {} older steps not counted (past the daemon's bound on step records)",
                         steps.steps_folded());
  }
  return table.Render(width, Palette(false)) +
         fmt::format(
             "{} steps{}, {} slow (over {} the median of the {} before); "
             "p50 {}, p95 {}, p99 {} without the {} warm-up\n"
             "from {}{}\n",
             steps.steps_total(), listed, steps.slow_steps(),
             FormatRatio(steps.rules().slow_factor()), steps.rules().window(),
             FormatDuration(steps.p50_ns()), FormatDuration(steps.p95_ns()),
             FormatDuration(steps.p99_ns()), steps.rules().warmup(), StepSourceText(steps.source()),
             folded);
}

int RunSteps(Connection& connection, const StepsOptions& options) {
  std::variant<v1::StepRules, CliError> rules = ToStepRules(options.rules);
  if (const CliError* error = std::get_if<CliError>(&rules)) return Fail(*error);
  v1::GetStepsRequest request;
  request.set_session_id(options.session_id);
  *request.mutable_rules() = std::get<v1::StepRules>(rules);
  request.set_limit(options.limit);
  v1::GetStepsResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().GetSteps(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  // Ops are found in the stored spans: only what the window kept (a step
  // whose spans it trimmed is listed from its record, time alone).
  PrintTrimNoticeOf(connection, options.session_id);
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
  } else {
    fmt::print("{}", RenderStepsTable(response, OutputWidth(STDOUT_FILENO)));
  }
  return kExitOk;
}

CommandSpec DescribeStepsCommand() {
  auto options = std::make_shared<StepsOptions>();
  CommandSpec steps("steps", "a session's steps (loop iterations): time, ops, slow ones");
  steps.footer =
      "Examples:\n  optrace steps 12\n  optrace steps 12 --slow-factor 2 --window 50\n"
      "  optrace steps 12 --json\n"
      "Steps are the session's optrace.step spans; without them, the NVTX ranges named by\n"
      "optrace run --nvtx --step-range, or PyTorch's ProfilerStep#N ranges, or else the steps\n"
      "of its first optimizer (Optimizer.step#...). An op is in the step it began in.\n"
      "A step whose spans the rolling window trimmed is listed from the daemon's step record:\n"
      "its time, with \"trimmed\" for its ops.\n"
      "Explain a slow step with: optrace why SESSION STEP\n"
      "See one step's ops as a call tree with: optrace tree SESSION --step STEP";
  steps.Add("SESSION", &options->session_id, "the session id").Required();
  AddStepRulesOptions(steps, &options->rules);
  steps.Add("--limit", &options->limit, "list the last N steps only (0 = up to 100,000)");
  steps.AddJsonFlag(&options->json, "the steps");
  steps.run = [options](Connection& connection) { return RunSteps(connection, *options); };
  return steps;
}

}  // namespace optrace::cli
