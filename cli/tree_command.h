// `optrace tree SESSION [--step N] [--by-tag] [--depth K] [--min-share P]
// [filters] [--json]`: a session's ops (or one step's) as a call tree
// merged by name, with count, total, self time and share per node, like a
// flame graph in text.
#ifndef OPTRACE_CLI_TREE_COMMAND_H_
#define OPTRACE_CLI_TREE_COMMAND_H_

#include <cstdint>
#include <optional>
#include <string>

#include "command_spec.h"
#include "connection.h"
#include "op_filter.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct TreeOptions {
  uint64_t session_id = 0;
  uint64_t step = 0;  // with step_given: only the spans begun in this step
  bool step_given = false;
  bool by_tag = false;
  uint32_t depth = 0;             // 0 = every level
  std::string min_share = "0.5";  // percent of the tree's total, as typed
  OpFilterOptions filter;
  bool json = false;
};

// `text` as a fraction, where it is a percentage from 0 to 100 (an
// optional trailing '%'); nullopt otherwise.
std::optional<double> ParsePercentage(const std::string& text);

// The tree as a table: TOTAL, SELF, SHARE, SELF%, COUNT and OP (the name,
// and the tag in brackets where there is one, indented two columns per
// level), in the daemon's depth-first order; then one line with the span
// count and the time in ops, and how many nodes were left out. `width` as
// Table::Render.
std::string RenderTreeTable(const v1::GetTreeResponse& tree, size_t width);

// Prints the tree; returns the exit code.
int RunTree(Connection& connection, const TreeOptions& options);

// `optrace tree`: its options, bound to TreeOptions it owns, and RunTree.
CommandSpec DescribeTreeCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TREE_COMMAND_H_
