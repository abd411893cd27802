// `optrace diff A B [--by name|tag] [--json]`: two sessions side by side,
// the biggest change in total time first. With --fleet, A and B select
// spans of the fleet in ClickHouse instead ("gpu-7", "node=gpu-7",
// "label=fused", "node=gpu-7,label=fused", "*"), with the span filters.
#ifndef OPTRACE_CLI_DIFF_COMMAND_H_
#define OPTRACE_CLI_DIFF_COMMAND_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli_error.h"
#include "command_spec.h"
#include "connection.h"
#include "op_filter.h"
#include "optrace/v1/optrace.pb.h"
#include "palette.h"

namespace optrace::cli {

struct DiffOptions {
  uint64_t session_a = 0;  // 0 with fleet
  uint64_t session_b = 0;
  v1::GroupBy by = v1::GROUP_BY_NAME;
  bool json = false;
  bool fleet = false;
  v1::FleetFilter fleet_a;  // with fleet: the two sides
  v1::FleetFilter fleet_b;
  OpFilterOptions filter;  // with fleet: applies to both sides
};

// Fills the sides of `options` from the command line's A and B: session
// ids, or with `options->fleet` fleet selectors (ParseFleetSelector).
// Errors (exit 2) name the argument and what it should be.
std::optional<CliError> ParseDiffSides(const std::string& a, const std::string& b,
                                       DiffOptions* options);

// Two sessions and their comparison: what `optrace diff A B` shows.
struct SessionDiff {
  v1::Session a;
  v1::Session b;
  v1::CompareSessionsResponse comparison;
};

// Asks the daemon at `connection` for sessions `a` and `b` (each first, so
// that an unknown one is named) and for their comparison grouped `by`,
// into `out`. Returns the first failed call's status, with
// `*failed_session` set to the session it was about (nullopt for the
// comparison); OK when every call answered.
grpc::Status FetchSessionDiff(Connection& connection, uint64_t a, uint64_t b, v1::GroupBy by,
                              SessionDiff* out, std::optional<uint64_t>* failed_session);

// The document of `optrace diff A B --json`: the comparison's fields
// (json_convert.h) and "session_a", "session_b".
nlohmann::json SessionDiffJson(const SessionDiff& diff);

// Prints the comparison; returns the exit code (an unknown A or B: "no
// session N", 1).
int RunDiff(Connection& connection, const DiffOptions& options);

// The table: key, COUNT A, COUNT B, TOTAL A, TOTAL B, CHANGE (B - A) and
// B/A ("only in A" / "only in B" for keys of one session), sorted by
// |change|, largest first (ties keep the daemon's order), then the totals.
// When B has fusions: RenderFusionTable, a blank line, and the table of
// the unfused rows (the ops no fusion involves) instead of every row.
std::string RenderDiffTable(const v1::CompareSessionsResponse& comparison, v1::GroupBy by,
                            size_t width, const Palette& palette);

// The fusions of `comparison`, in the daemon's order: per fusion a line of
// its group (COUNT A, COUNT B, TOTAL A, TOTAL B, CHANGE, B/A, OPS SAVED),
// a "(fused op)" line of the fused spans themselves, and a line per listed
// part (its spans in A, and in B where B still runs it unfused) flagged
// "empty part", "missing in A", "repeated" or "shared" in the B/A column.
// Fits `width` (0: no limit) by cutting the first column.
std::string RenderFusionTable(const v1::CompareSessionsResponse& comparison, size_t width,
                              const Palette& palette);

// `optrace diff`: its options, bound to DiffOptions it owns, the check of A
// and B (ParseDiffSides), and RunDiff.
CommandSpec DescribeDiffCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_DIFF_COMMAND_H_
