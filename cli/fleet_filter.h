// The fleet flags of `optrace stats|ops|diff --fleet` (--node, --label)
// and the A/B selectors of `optrace diff --fleet A B`, in request form.
#ifndef OPTRACE_CLI_FLEET_FILTER_H_
#define OPTRACE_CLI_FLEET_FILTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "command_spec.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// --node and --label of the fleet commands, as parsed.
struct FleetFilterOptions {
  std::string node;   // exact node name; "" = every node
  std::string label;  // exact session label; "" = any
};

// The FleetFilter that asks for exactly what `options` says.
v1::FleetFilter ToFleetFilter(const FleetFilterOptions& options);

// Adds the positional SESSION (into `*session_id`) to `command`, --fleet
// that excludes it, --node and --label that need --fleet, and the check
// that SESSION is given unless --fleet is (a usage error otherwise).
// `what` says what --fleet covers ("spans"). The targets must outlive the
// parse and the check. REQUIRES: `command` has no check yet.
void AddSessionOrFleetOptions(CommandSpec& command, uint64_t* session_id, bool* fleet,
                              FleetFilterOptions* filter, const std::string& what);

// Parses a side of `optrace diff --fleet A B`: "NODE", "node=NODE",
// "label=LABEL" or both, comma-separated ("node=gpu-7,label=fused"); "*"
// is every node. nullopt for anything else (an unknown key, an empty
// value, a key given twice).
std::optional<v1::FleetFilter> ParseFleetSelector(std::string_view text);

// How a side reads in the header lines: "node gpu-7, label fused", "every
// node".
std::string DescribeFleetSelector(const v1::FleetFilter& side);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_FLEET_FILTER_H_
