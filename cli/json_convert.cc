#include "json_convert.h"

#include "proto_names.h"

namespace optrace::cli {

using nlohmann::json;

json ToJson(const v1::Device& device) {
  return {{"target", TargetWord(device.target())},
          {"ordinal", device.ordinal()},
          {"stream", device.stream()},
          {"name", DeviceWord(device)}};
}

json ToJson(const v1::Drops& drops) {
  return {{"ring_full", drops.ring_full()}, {"no_ring", drops.no_ring()},
          {"shed", drops.shed()},           {"daemon_restart", drops.daemon_restart()},
          {"invalid", drops.invalid()},     {"total", drops.total()},
          {"strings", drops.strings()},     {"names_capped", drops.names_capped()}};
}

namespace {

// A window's bounds and whose it is (`optrace window --json` less the id).
json WindowJson(const v1::Window& window) {
  return {{"keep_last_ns", window.keep_last_ns()},
          {"keep_last_bytes", window.keep_last_bytes()},
          {"own", window.own()}};
}

}  // namespace

json ToJson(const v1::Session& session) {
  return {{"id", session.id()},
          {"label", session.label()},
          {"pid", session.pid()},
          {"pid_verified", !session.pid_unverified()},
          {"uid", session.uid()},
          {"executable", session.executable()},
          {"command_line", session.command_line()},
          {"start_unix_ns", session.start_unix_ns()},
          {"end_unix_ns", session.end_unix_ns()},
          {"state", SessionStateWord(session.state())},
          {"events", session.events()},
          {"spans", session.spans()},
          {"instants", session.instants()},
          {"open_ops", session.open_ops()},
          {"drops", ToJson(session.drops())},
          {"spans_trimmed", session.spans_trimmed()},
          {"instants_trimmed", session.instants_trimmed()},
          {"trimmed_before_unix_ns", session.trimmed_before_unix_ns()},
          {"live_level", LevelWord(session.live_level())},
          {"full_ring_wait_ns", session.full_ring_wait_ns()},
          {"full_ring_wait_timeouts", session.full_ring_wait_timeouts()},
          {"window", WindowJson(session.window())},
          {"listings",
           {{"stored", session.listings().stored()},
            {"refused", session.listings().refused()},
            {"dropped", session.listings().dropped()},
            {"capped", session.listings().capped()}}}};
}

json ToJson(uint64_t session_id, const v1::Window& window) {
  json out = WindowJson(window);
  out["session_id"] = session_id;
  return out;
}

// A measured value: the number, or null when it is unknown (absent).
json Known(bool has, uint64_t value) { return has ? json(value) : json(nullptr); }

json ToJson(const v1::Span& span) {
  return {{"session_id", span.session_id()},
          {"op_id", span.op_id()},
          {"parent_op_id", span.parent_op_id()},
          {"name", span.name()},
          {"tag", span.tag()},
          {"source_location", span.source_location()},
          {"device", ToJson(span.device())},
          {"start_unix_ns", span.start_unix_ns()},
          {"duration_ns", Known(span.has_duration_ns(), span.duration_ns())},
          {"self_ns", Known(span.has_self_ns(), span.self_ns())},
          {"device_duration_ns", Known(span.has_device_duration_ns(), span.device_duration_ns())},
          {"launch_thread", span.launch_thread()},
          {"complete_thread", span.complete_thread()},
          {"status", SpanStatusWord(span.status())},
          {"node", span.node()},
          {"label", span.label()}};
}

json ToJson(const v1::OpenOp& op) {
  return {{"op_id", op.op_id()},
          {"parent_op_id", op.parent_op_id()},
          {"name", op.name()},
          {"tag", op.tag()},
          {"source_location", op.source_location()},
          {"device", ToJson(op.device())},
          {"start_unix_ns", op.start_unix_ns()},
          {"open_for_ns", op.open_for_ns()},
          {"thread", op.thread()}};
}

json ToJson(const v1::ListSessionsResponse& sessions) {
  json rows = json::array();
  for (const v1::Session& s : sessions.sessions()) rows.push_back(ToJson(s));
  return {{"sessions", rows}};
}

json ToJson(const v1::GetSessionResponse& response) {
  json open_ops = json::array();
  for (const v1::OpenOp& op : response.open_ops()) open_ops.push_back(ToJson(op));
  return {{"session", ToJson(response.session())}, {"open_ops", open_ops}};
}

json ToJson(const v1::LiveEvent& event) {
  const std::optional<abi::EventKind> kind = ToEventKind(event.kind());
  std::string kind_word = "unknown";
  if (kind) {
    switch (*kind) {
      case abi::EventKind::kLaunch:
        kind_word = "launch";
        break;
      case abi::EventKind::kComplete:
        kind_word = "complete";
        break;
      case abi::EventKind::kMark:
        kind_word = "mark";
        break;
      case abi::EventKind::kCounter:
        kind_word = "counter";
        break;
    }
  }
  return {{"session_id", event.session_id()},
          {"pid", event.pid()},
          {"label", event.label()},
          {"kind", kind_word},
          {"op_id", event.op_id()},
          {"parent_op_id", event.parent_op_id()},
          {"name", event.name()},
          {"tag", event.tag()},
          {"source_location", event.source_location()},
          {"device", ToJson(event.device())},
          {"unix_ns", event.unix_ns()},
          {"thread", event.thread()},
          {"duration_ns", Known(event.has_duration_ns(), event.duration_ns())},
          {"device_duration_ns", Known(event.has_device_duration_ns(), event.device_duration_ns())},
          {"value", event.value()},
          {"level", LevelWord(event.level())}};
}

json ToJson(const v1::TailResponse& item) {
  json out;
  switch (item.item_case()) {
    case v1::TailResponse::kEvent:
      out = ToJson(item.event());
      out["type"] = "event";
      break;
    case v1::TailResponse::kSpan:
      out = ToJson(item.span());
      out["type"] = "span";
      break;
    case v1::TailResponse::kLag:
      out = {{"type", "lag"}, {"skipped", item.lag().skipped()}, {"message", item.lag().message()}};
      break;
    default:
      out = {{"type", "unknown"}};
      break;
  }
  return out;
}

json ToJson(const v1::GetLevelResponse& levels) {
  json rules = json::array();
  for (const v1::LevelRule& rule : levels.rules()) {
    rules.push_back({{"label_pattern", rule.label_pattern()}, {"level", LevelWord(rule.level())}});
  }
  json producers = json::array();
  for (const v1::ProducerLevel& p : levels.producers()) {
    producers.push_back({{"session_id", p.session_id()},
                         {"pid", p.pid()},
                         {"label", p.label()},
                         {"live", LevelWord(p.live())},
                         {"requested", LevelWord(p.requested())},
                         {"override", LevelWord(p.override())},
                         {"tail", LevelWord(p.tail())}});
  }
  return {{"default_level", LevelWord(levels.default_level())},
          {"rules", rules},
          {"producers", producers}};
}

json ToJson(const v1::OpStats& stats) {
  return {{"key", stats.key()},
          {"count", stats.count()},
          {"ok_count", stats.ok_count()},
          {"total_ns", stats.total_ns()},
          {"mean_ns", stats.mean_ns()},
          {"min_ns", stats.min_ns()},
          {"p50_ns", stats.p50_ns()},
          {"p95_ns", stats.p95_ns()},
          {"p99_ns", stats.p99_ns()},
          {"max_ns", stats.max_ns()},
          {"share", stats.share()},
          {"node", stats.node()},
          {"nodes", stats.nodes()},
          {"self_ns", stats.self_ns()},
          {"self_share", stats.self_share()}};
}

json ToJson(const v1::GetStatsResponse& stats, bool with_threads) {
  json rows = json::array();
  for (const v1::OpStats& row : stats.rows()) rows.push_back(ToJson(row));
  json document = {{"rows", rows},
                   {"total_ns", stats.total_ns()},
                   {"self_ns", stats.self_ns()},
                   {"spans", stats.spans()},
                   {"source", StatsSourceWord(stats.source())},
                   {"percentiles_exact", stats.percentiles_exact()},
                   {"percentile_relative_error", stats.percentile_relative_error()},
                   {"percentile_spans", stats.percentile_spans()},
                   {"groups_folded", stats.groups_folded()}};
  if (with_threads) {
    json threads = json::array();
    for (const v1::ThreadBusy& thread : stats.threads()) {
      threads.push_back({{"tid", thread.tid()},
                         {"ops", thread.ops()},
                         {"busy_ns", thread.busy_ns()},
                         {"first_start_unix_ns", thread.first_start_unix_ns()},
                         {"last_end_unix_ns", thread.last_end_unix_ns()},
                         {"wall_ns", thread.wall_ns()},
                         {"busy_share", thread.busy_share()}});
    }
    document["threads"] = std::move(threads);
    document["threads_left_out"] = stats.threads_left_out();
  }
  return document;
}

json ToJson(const v1::Comparison& row) {
  return {{"key", row.key()},
          {"count_a", row.count_a()},
          {"count_b", row.count_b()},
          {"total_a_ns", row.total_a_ns()},
          {"total_b_ns", row.total_b_ns()},
          {"mean_a_ns", row.mean_a_ns()},
          {"mean_b_ns", row.mean_b_ns()},
          {"total_ratio", row.total_ratio()},
          {"mean_ratio", row.mean_ratio()},
          {"only_in_a", row.only_in_a()},
          {"only_in_b", row.only_in_b()},
          {"total_change_ns", row.total_change_ns()}};
}

json ToJson(const v1::FusionPart& part) {
  return {{"tag", part.tag()},
          {"name", part.name()},
          {"count_a", part.count_a()},
          {"total_a_ns", part.total_a_ns()},
          {"count_b", part.count_b()},
          {"total_b_ns", part.total_b_ns()},
          {"missing_in_a", part.missing_in_a()},
          {"shared", part.shared()},
          {"empty", part.empty()},
          {"repeated", part.repeated()}};
}

json ToJson(const v1::Fusion& fusion) {
  json parts = json::array();
  for (const v1::FusionPart& part : fusion.parts()) parts.push_back(ToJson(part));
  return {{"name", fusion.name()},
          {"tag", fusion.tag()},
          {"parts", parts},
          {"part_count", fusion.part_count()},
          {"parts_not_listed", fusion.parts_not_listed()},
          {"empty_parts", fusion.empty_parts()},
          {"parts_missing_in_a", fusion.parts_missing_in_a()},
          {"shares_parts", fusion.shares_parts()},
          {"count_b", fusion.count_b()},
          {"total_b_ns", fusion.total_b_ns()},
          {"fused_count_a", fusion.fused_count_a()},
          {"fused_total_a_ns", fusion.fused_total_a_ns()},
          {"group_count_a", fusion.group_count_a()},
          {"group_total_a_ns", fusion.group_total_a_ns()},
          {"group_count_b", fusion.group_count_b()},
          {"group_total_b_ns", fusion.group_total_b_ns()},
          {"total_change_ns", fusion.total_change_ns()},
          {"total_ratio", fusion.total_ratio()},
          {"ops_saved", fusion.ops_saved()}};
}

json ToJson(const v1::CompareSessionsResponse& comparison) {
  json rows = json::array();
  for (const v1::Comparison& row : comparison.rows()) rows.push_back(ToJson(row));
  json fusions = json::array();
  for (const v1::Fusion& fusion : comparison.fusions()) fusions.push_back(ToJson(fusion));
  json unfused_rows = json::array();
  for (const v1::Comparison& row : comparison.unfused_rows()) unfused_rows.push_back(ToJson(row));
  return {{"rows", rows},
          {"total_a_ns", comparison.total_a_ns()},
          {"total_b_ns", comparison.total_b_ns()},
          {"fusions", fusions},
          {"unfused_rows", unfused_rows},
          {"fused_total_a_ns", comparison.fused_total_a_ns()},
          {"fused_total_b_ns", comparison.fused_total_b_ns()}};
}

json ToJson(const v1::FleetFilter& fleet) {
  return {{"node", fleet.node()}, {"label", fleet.label()}};
}

json ToJson(const v1::ForwardStatus& forward) {
  return {{"url", forward.url()},
          {"node", forward.node()},
          {"table", forward.table()},
          {"spans_sent", forward.spans_sent()},
          {"batches_sent", forward.batches_sent()},
          {"spans_lost_to_retention", forward.spans_lost_to_retention()},
          {"errors", forward.errors()},
          {"last_error", forward.last_error()},
          {"backlog_spans", forward.backlog_spans()},
          {"last_sent_unix_ns", forward.last_sent_unix_ns()}};
}

json ToJson(const v1::Listener& listener) {
  return {{"kind", ListenerKindWord(listener.kind())},
          {"address", listener.address()},
          {"tls", listener.tls()},
          {"token_users", listener.token_users()},
          {"client_certificates", listener.client_certificates()},
          {"unauthenticated", listener.unauthenticated()},
          {"warning", listener.warning()}};
}

json ToJson(const v1::GetStatusResponse& status) {
  json counters = json::object();
  for (const auto& [name, value] : status.counters()) counters[name] = value;
  json listeners = json::array();
  for (const v1::Listener& listener : status.listeners()) listeners.push_back(ToJson(listener));
  json stored_sessions = json::object();
  for (const auto& [state, count] : status.stored_sessions()) stored_sessions[state] = count;
  return {{"version", status.version()},
          {"uptime_ns", status.uptime_ns()},
          {"namespace", status.namespace_()},
          {"db_path", status.db_path()},
          {"db_bytes", status.db_bytes()},
          {"attached_segments", status.attached_segments()},
          {"running_sessions", status.running_sessions()},
          {"stored_sessions", stored_sessions},
          {"events_per_second", status.events_per_second()},
          {"events_ingested", status.events_ingested()},
          {"drops", ToJson(status.drops())},
          {"all_sessions_drops",
           status.has_all_sessions_drops() ? ToJson(status.all_sessions_drops()) : json(nullptr)},
          {"writer_backlog_batches", status.writer_backlog_batches()},
          {"writer_backlog_spans", status.writer_backlog_spans()},
          {"writer_last_error", status.writer_last_error()},
          {"writer_errors", status.writer_errors()},
          {"segments_rejected", status.segments_rejected()},
          {"abi_violations", status.abi_violations()},
          {"tails", status.tails()},
          {"default_level", LevelWord(status.default_level())},
          {"counters", counters},
          {"forward", status.has_forward() ? ToJson(status.forward()) : json()},
          {"listeners", listeners}};
}

json ToJson(const v1::Keep& keep) {
  return {{"session_id", keep.session_id()},
          {"first_unix_ns", keep.first_unix_ns()},
          {"last_unix_ns", keep.last_unix_ns()},
          {"reason", keep.reason()},
          {"bytes", keep.bytes()},
          {"created_unix_ns", keep.created_unix_ns()}};
}

json ToJson(const v1::ListKeepsResponse& keeps) {
  json list = json::array();
  for (const v1::Keep& keep : keeps.keeps()) list.push_back(ToJson(keep));
  return {{"keeps", list}};
}

json ToJson(const v1::GetTreeResponse& tree) {
  json nodes = json::array();
  for (const v1::TreeNode& node : tree.nodes()) {
    nodes.push_back({{"depth", node.depth()},
                     {"name", node.name()},
                     {"tag", node.tag()},
                     {"count", node.count()},
                     {"total_ns", node.total_ns()},
                     {"self_ns", node.self_ns()},
                     {"share", node.share()},
                     {"self_share", node.self_share()}});
  }
  return {{"nodes", nodes},
          {"total_ns", tree.total_ns()},
          {"spans", tree.spans()},
          {"nodes_left_out", tree.nodes_left_out()}};
}

namespace {

std::string_view StepSourceWord(v1::StepSource source) {
  switch (source) {
    case v1::STEP_SOURCE_EXPLICIT:
      return "explicit";
    case v1::STEP_SOURCE_RANGE:
      return "range";
    case v1::STEP_SOURCE_PROFILER:
      return "profiler";
    case v1::STEP_SOURCE_OPTIMIZER:
      return "optimizer";
    default:
      return "none";
  }
}

}  // namespace

json ToJson(const v1::GetStepsResponse& steps) {
  json list = json::array();
  for (const v1::Step& step : steps.steps()) {
    list.push_back({{"step", step.number()},
                    {"start_unix_ns", step.start_unix_ns()},
                    {"duration_ns", step.duration_ns()},
                    {"ops", step.ops()},
                    {"top_op", step.top_op()},
                    {"top_op_tag", step.top_op_tag()},
                    {"top_op_self_ns", step.top_op_self_ns()},
                    {"slow", step.slow()},
                    {"warmup", step.warmup()},
                    {"baseline_ns", step.baseline_ns()},
                    {"trimmed", step.trimmed()}});
  }
  return {{"steps", list},
          {"steps_total", steps.steps_total()},
          {"steps_folded", steps.steps_folded()},
          {"slow_steps", steps.slow_steps()},
          {"p50_ns", steps.p50_ns()},
          {"p95_ns", steps.p95_ns()},
          {"p99_ns", steps.p99_ns()},
          {"source", StepSourceWord(steps.source())},
          {"rules",
           {{"slow_factor", steps.rules().slow_factor()},
            {"window", steps.rules().window()},
            {"warmup", steps.rules().warmup()}}}};
}

json ToJson(const v1::ExplainStepResponse& why) {
  json ops = json::array();
  for (const v1::StepOpExtra& op : why.ops()) {
    ops.push_back({{"name", op.name()},
                   {"tag", op.tag()},
                   {"self_ns", op.self_ns()},
                   {"baseline_ns", op.baseline_ns()},
                   {"extra_ns", op.extra_ns()},
                   {"share", op.share()},
                   {"cumulative_share", op.cumulative_share()},
                   {"only_in_step", op.only_in_step()}});
  }
  return {{"step", why.step()},
          {"duration_ns", why.duration_ns()},
          {"baseline_ns", why.baseline_ns()},
          {"extra_ns", why.extra_ns()},
          {"slow", why.slow()},
          {"warmup", why.warmup()},
          {"baseline_steps",
           json(std::vector<uint64_t>(why.baseline_steps().begin(), why.baseline_steps().end()))},
          {"ops", ops}};
}

json ToJson(const v1::GetSourceResponse& source) {
  return {{"source_location", source.source_location()},
          {"file", source.file()},
          {"line", source.line()},
          {"first_line", source.first_line()},
          {"lines", json(std::vector<std::string>(source.lines().begin(), source.lines().end()))},
          {"registered", source.registered()}};
}

}  // namespace optrace::cli
