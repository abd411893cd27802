#include "fleet_filter.h"

#include <fmt/core.h>

#include "exit_codes.h"

namespace optrace::cli {

v1::FleetFilter ToFleetFilter(const FleetFilterOptions& options) {
  v1::FleetFilter filter;
  filter.set_node(options.node);
  filter.set_label(options.label);
  return filter;
}

void AddSessionOrFleetOptions(CommandSpec& command, uint64_t* session_id, bool* fleet,
                              FleetFilterOptions* filter, const std::string& what) {
  auto session_given = std::make_shared<bool>(false);
  command.Add("SESSION", session_id, "the session id").Given(session_given.get());
  command
      .AddFlag("--fleet", fleet,
               what +
                   " of every node's spans, from the ClickHouse the daemon forwards to, not a "
                   "session")
      .Excludes("SESSION");
  command.Add("--node", &filter->node, "with --fleet: only this node").Needs("--fleet");
  command.Add("--label", &filter->label, "with --fleet: only sessions with this label")
      .Needs("--fleet");
  command.check = [session_given, fleet]() -> std::optional<CliError> {
    if (*fleet || *session_given) return std::nullopt;
    return CliError{kExitUsage, "SESSION is required (or --fleet, for every node's spans)"};
  };
}

std::optional<v1::FleetFilter> ParseFleetSelector(std::string_view text) {
  v1::FleetFilter side;
  if (text == "*") return side;
  if (text.empty()) return std::nullopt;
  if (text.find('=') == std::string_view::npos) {
    side.set_node(std::string(text));
    return side;
  }
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t equals = part.find('=');
    if (equals == std::string_view::npos || equals + 1 == part.size()) return std::nullopt;
    const std::string_view key = part.substr(0, equals);
    const std::string value(part.substr(equals + 1));
    if (key == "node" && side.node().empty()) {
      side.set_node(value);
    } else if (key == "label" && side.label().empty()) {
      side.set_label(value);
    } else {
      return std::nullopt;
    }
    if (comma != std::string_view::npos && text.empty()) return std::nullopt;
  }
  return side;
}

std::string DescribeFleetSelector(const v1::FleetFilter& side) {
  if (side.node().empty() && side.label().empty()) return "every node";
  if (side.label().empty()) return fmt::format("node {}", side.node());
  if (side.node().empty()) return fmt::format("label {} on every node", side.label());
  return fmt::format("node {}, label {}", side.node(), side.label());
}

}  // namespace optrace::cli
