#include "tree_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <charconv>
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

std::optional<double> ParsePercentage(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  double percent = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
      !(percent >= 0 && percent <= 100)) {
    return std::nullopt;
  }
  return percent / 100;
}

std::string RenderTreeTable(const v1::GetTreeResponse& tree, size_t width) {
  if (tree.nodes().empty()) return "no spans match\n";
  Table table({{"TOTAL", Align::kRight},
               {"SELF", Align::kRight},
               {"SHARE", Align::kRight},
               {"SELF%", Align::kRight},
               {"COUNT", Align::kRight},
               {"OP", Align::kLeft, true}});
  for (const v1::TreeNode& node : tree.nodes()) {
    std::string op = std::string(2 * node.depth(), ' ') + (node.name().empty() ? "-" : node.name());
    if (!node.tag().empty()) op += " [" + node.tag() + "]";
    table.AddRow({FormatDuration(node.total_ns()), FormatDuration(node.self_ns()),
                  FormatShare(node.share()), FormatShare(node.self_share()),
                  std::to_string(node.count()), std::move(op)});
  }
  std::string left_out;
  if (tree.nodes_left_out() > 0) {
    left_out = fmt::format("; {} smaller or deeper nodes left out (--min-share 0 --depth 0: all)",
                           tree.nodes_left_out());
  }
  return table.Render(width, Palette(false)) + fmt::format("{} spans, {} in ops{}\n", tree.spans(),
                                                           FormatDuration(tree.total_ns()),
                                                           left_out);
}

int RunTree(Connection& connection, const TreeOptions& options) {
  const std::optional<double> min_share = ParsePercentage(options.min_share);
  if (!min_share) {
    return Fail(
        {kExitUsage, "--min-share: '" + options.min_share + "' is not a percentage from 0 to 100"});
  }
  v1::GetTreeRequest request;
  request.set_session_id(options.session_id);
  request.set_step(options.step);
  request.set_has_step(options.step_given);
  request.set_by_tag(options.by_tag);
  request.set_max_depth(options.depth);
  request.set_min_share(*min_share);
  *request.mutable_filter() = ToOpFilter(options.filter);
  v1::GetTreeResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().GetTree(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
  // Built from the stored spans: only what the window kept.
  PrintTrimNoticeOf(connection, options.session_id);
  if (options.json) {
    fmt::print("{}\n", ToJson(response).dump(2));
  } else {
    fmt::print("{}", RenderTreeTable(response, OutputWidth(STDOUT_FILENO)));
  }
  return kExitOk;
}

CommandSpec DescribeTreeCommand() {
  auto options = std::make_shared<TreeOptions>();
  CommandSpec tree("tree", "a session's ops as a call tree merged by name, with self time");
  tree.footer =
      "Examples:\n  optrace tree 12\n  optrace tree 12 --depth 3 --min-share 1%\n"
      "  optrace tree 12 --step 57\n"
      "  optrace tree 12 --by-tag --name conv --json\n"
      "A node is the ops of one name under the same chain of parents; its SELF is its time\n"
      "less its children's on the same thread. Ops whose parent the filter leaves out are roots.";
  tree.Add("SESSION", &options->session_id, "the session id").Required();
  tree.Add("--step", &options->step,
           "only the ops begun in this step (its number, as optrace steps lists it)")
      .Given(&options->step_given);
  tree.AddFlag("--by-tag", &options->by_tag, "nodes by name and tag instead of by name");
  tree.Add("--depth", &options->depth, "show this many levels (0 = all)");
  tree.Add("--min-share", &options->min_share,
           "leave out nodes below this percentage of the time in ops (0 = none)")
      .ShowDefault();
  AddOpFilterOptions(tree, &options->filter);
  tree.AddJsonFlag(&options->json, "the tree");
  tree.run = [options](Connection& connection) { return RunTree(connection, *options); };
  return tree;
}

}  // namespace optrace::cli
