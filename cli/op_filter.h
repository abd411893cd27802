// The span filter flags shared by `optrace ops`, `optrace stats` and
// `optrace diff --fleet` (--name, --tag, --target, --device, --status,
// --min-duration, --since, --until) and their request form.
#ifndef OPTRACE_CLI_OP_FILTER_H_
#define OPTRACE_CLI_OP_FILTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command_spec.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

struct OpFilterOptions {
  std::string name_pattern;  // RE2, matched anywhere; "" = any
  std::string tag_pattern;
  std::optional<v1::Target> target;
  std::optional<uint32_t> device;
  std::optional<v1::SpanStatus> status;
  uint64_t min_duration_ns = 0;
  int64_t start_min_unix_ns = 0;  // --since: 0 = no bound
  int64_t start_max_unix_ns = 0;  // --until: 0 = no bound
};

// The OpFilter that asks the daemon for exactly what `options` says.
v1::OpFilter ToOpFilter(const OpFilterOptions& options);

// Adds the filter flags to `command`, bound to `*filter` (which must outlive
// the parse); returns them, for `needs` rules and groups. The pointers are
// valid while `command` is.
std::vector<OptionSpec*> AddOpFilterOptions(CommandSpec& command, OpFilterOptions* filter);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_OP_FILTER_H_
