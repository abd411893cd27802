#include "why_command.h"

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
namespace {

// The daemon ranks ops until this share of the extra time is named.
constexpr double kNamedShare = 0.8;
// Ops after that point below this share of the extra are summed in one line.
constexpr double kSmallShare = 0.01;

std::string StepList(const v1::ExplainStepResponse& why) {
  std::string list;
  for (uint64_t step : why.baseline_steps()) {
    list += (list.empty() ? "" : ", ") + std::to_string(step);
  }
  return list;
}

}  // namespace

std::string RenderWhy(const v1::ExplainStepResponse& why, size_t width) {
  const char* kind = why.slow() ? "slow step" : why.warmup() ? "warm-up step" : "step";
  const std::string baseline = why.baseline_steps_size() == 1
                                   ? fmt::format("step {}", why.baseline_steps(0))
                                   : fmt::format("the median of steps {}", StepList(why));
  std::string text =
      fmt::format("{} {}: {}, baseline {} ({})", kind, why.step(),
                  FormatDuration(why.duration_ns()), FormatDuration(why.baseline_ns()), baseline);
  if (why.extra_ns() == 0) {
    text += ": no longer than its baseline\n";
  } else {
    text += fmt::format(": {} more\n", FormatDuration(why.extra_ns()));
  }
  if (why.ops().empty()) return text;
  Table table({{"EXTRA", Align::kRight},
               {"SHARE", Align::kRight},
               {"CUMUL", Align::kRight},
               {"SELF", Align::kRight},
               {"BASELINE", Align::kRight},
               {"OP", Align::kLeft, true}});
  size_t folded = 0;
  uint64_t folded_ns = 0;
  double named = 0;  // the cumulative share before this op
  for (const v1::StepOpExtra& op : why.ops()) {
    // Past the point where most of the extra is named, ops that ran only
    // in the step and add little are summed in one line.
    if (named >= kNamedShare && op.share() < kSmallShare) {
      ++folded;
      folded_ns += op.extra_ns();
      continue;
    }
    named = op.cumulative_share();
    std::string name = op.name().empty() ? "-" : op.name();
    if (!op.tag().empty()) name += " [" + op.tag() + "]";
    if (op.only_in_step()) name += " (only in this step)";
    const bool has_extra = why.extra_ns() > 0;
    table.AddRow({"+" + FormatDuration(op.extra_ns()), has_extra ? FormatShare(op.share()) : "-",
                  has_extra ? FormatShare(op.cumulative_share()) : "-",
                  FormatDuration(op.self_ns()),
                  op.only_in_step() ? "-" : FormatDuration(op.baseline_ns()), std::move(name)});
  }
  text += table.Render(width, Palette(false));
  if (folded > 0) {
    text += fmt::format(
        "and {} more ops that ran only in this step, each under {} of the extra: "
        "+{} in all (--json lists them)\n",
        folded, FormatShare(kSmallShare), FormatDuration(folded_ns));
  }
  return text;
}

int RunWhy(Connection& connection, const WhyOptions& options) {
  std::variant<v1::StepRules, CliError> rules = ToStepRules(options.rules);
  if (const CliError* error = std::get_if<CliError>(&rules)) return Fail(*error);
  v1::ExplainStepRequest request;
  request.set_session_id(options.session_id);
  request.set_step(options.step);
  request.set_baseline_step(options.baseline);
  request.set_has_baseline_step(options.baseline_given);
  *request.mutable_rules() = std::get<v1::StepRules>(rules);
  v1::ExplainStepResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().ExplainStep(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  PrintTrimNoticeOf(connection, options.session_id);
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
  } else {
    fmt::print("{}", RenderWhy(response, OutputWidth(STDOUT_FILENO)));
  }
  return kExitOk;
}

CommandSpec DescribeWhyCommand() {
  auto options = std::make_shared<WhyOptions>();
  CommandSpec why("why", "why a step took longer: the ops whose self time grew");
  why.footer =
      "Examples:\n  optrace why 12 57\n  optrace why 12 57 --baseline 56 --json\n"
      "The baseline is, per op, the median of its self time over the 10 nearest steps that\n"
      "are neither slow nor warm-up (or one --baseline step). Ops are ranked by their extra\n"
      "time until 80% of the step's extra time is named; ops that ran only in this step follow.";
  why.Add("SESSION", &options->session_id, "the session id").Required();
  why.Add("STEP", &options->step, "the step's number, as optrace steps lists it").Required();
  why.Add("--baseline", &options->baseline, "compare with this step instead")
      .Given(&options->baseline_given);
  AddStepRulesOptions(why, &options->rules);
  why.AddJsonFlag(&options->json, "the explanation");
  why.run = [options](Connection& connection) { return RunWhy(connection, *options); };
  return why;
}

}  // namespace optrace::cli
