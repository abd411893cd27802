// The JSON shapes of `--json`: one object per proto message, with
// snake_case keys as in the proto, enums as the CLI's words ("trace",
// "gpu", "running"), devices as "gpu:0", and 64-bit numbers as JSON
// numbers (nanoseconds fit a double exactly below 2^53, ~104 days).
// Fields at their default are still written, so scripts can rely on keys.
#ifndef OPTRACE_CLI_JSON_CONVERT_H_
#define OPTRACE_CLI_JSON_CONVERT_H_

#include <nlohmann/json.hpp>

#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

nlohmann::json ToJson(const v1::Device& device);
nlohmann::json ToJson(const v1::Drops& drops);
nlohmann::json ToJson(const v1::Session& session);
nlohmann::json ToJson(const v1::Span& span);
nlohmann::json ToJson(const v1::OpenOp& op);
// {"sessions": [...]}
nlohmann::json ToJson(const v1::ListSessionsResponse& sessions);
// {"session": {...}, "open_ops": [...]}
nlohmann::json ToJson(const v1::GetSessionResponse& response);
// {"type": "event"|"span"|"lag", ...the item's fields}: one line of
// `optrace tail --json`. An empty item gives {"type": "unknown"}.
nlohmann::json ToJson(const v1::TailResponse& item);
nlohmann::json ToJson(const v1::LiveEvent& event);
nlohmann::json ToJson(const v1::GetLevelResponse& levels);
nlohmann::json ToJson(const v1::OpStats& stats);
// {"rows": [...], "total_ns", "self_ns", "spans", "source", ...}; with
// `with_threads` (GetStatsRequest.threads asked) also "threads": [{"tid",
// "ops", "busy_ns", "first_start_unix_ns", "last_end_unix_ns", "wall_ns",
// "busy_share"}, ...] and "threads_left_out".
nlohmann::json ToJson(const v1::GetStatsResponse& stats, bool with_threads = false);
nlohmann::json ToJson(const v1::Comparison& row);
nlohmann::json ToJson(const v1::FusionPart& part);
nlohmann::json ToJson(const v1::Fusion& fusion);
nlohmann::json ToJson(const v1::CompareSessionsResponse& comparison);
// {"node": ..., "label": ...}: a side of `optrace diff --fleet`.
nlohmann::json ToJson(const v1::FleetFilter& fleet);
nlohmann::json ToJson(const v1::ForwardStatus& forward);
// {"kind": "grpc"|"metrics", "address", "tls", "token_users",
// "client_certificates", "unauthenticated", "warning"}.
nlohmann::json ToJson(const v1::Listener& listener);
// "forward" is null when the daemon does not forward to ClickHouse;
// "listeners" lists its TCP and HTTP listeners ([] for none).
nlohmann::json ToJson(const v1::GetStatusResponse& status);
nlohmann::json ToJson(const v1::Keep& keep);
nlohmann::json ToJson(const v1::ListKeepsResponse& keeps);
// {"session_id", "keep_last_ns", "keep_last_bytes", "own"}: `optrace window --json`.
nlohmann::json ToJson(uint64_t session_id, const v1::Window& window);
// {"nodes": [{"depth", "name", "tag", "count", "total_ns", "self_ns",
// "share", "self_share"}, ...], "total_ns", "spans", "nodes_left_out"}.
nlohmann::json ToJson(const v1::GetTreeResponse& tree);
// {"steps": [{"step", "start_unix_ns", "duration_ns", "ops", "top_op",
// "top_op_tag", "top_op_self_ns", "slow", "warmup", "baseline_ns"}, ...],
// "steps_total", "slow_steps", "p50_ns", "p95_ns", "p99_ns", "source"
// ("explicit", "range", "profiler", "optimizer" or "none"), "rules": {"slow_factor",
// "window", "warmup"}}.
nlohmann::json ToJson(const v1::GetStepsResponse& steps);
// {"step", "duration_ns", "baseline_ns", "extra_ns", "slow", "warmup",
// "baseline_steps": [...], "ops": [{"name", "tag", "self_ns",
// "baseline_ns", "extra_ns", "share", "cumulative_share", "only_in_step"},
// ...]}.
nlohmann::json ToJson(const v1::ExplainStepResponse& why);
// {"source_location", "file", "line", "first_line", "lines": [...],
// "registered"}: `optrace source --json`.
nlohmann::json ToJson(const v1::GetSourceResponse& source);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_JSON_CONVERT_H_
