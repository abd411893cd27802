#include "stats_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cmath>
#include <memory>
#include <vector>

#include "bar.h"
#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"
#include "trim_notice.h"

namespace optrace::cli {
namespace {

std::string KeyHeader(v1::GroupBy by) {
  switch (by) {
    case v1::GROUP_BY_TAG:
      return "TAG";
    case v1::GROUP_BY_TARGET:
      return "DEVICE";
    default:
      return "NAME";
  }
}

// What the totals line says of where the figures came from (GetStatsResponse.source).
std::string SourceText(const v1::GetStatsResponse& stats) {
  switch (stats.source()) {
    case v1::STATS_SOURCE_AGGREGATES: {
      uint64_t ok_spans = 0;
      for (const v1::OpStats& row : stats.rows()) ok_spans += row.ok_count();
      std::string text = fmt::format("; whole session, from aggregates; percentiles ±{:.1f}%",
                                     100 * stats.percentile_relative_error());
      // Summed over the rows shown, which --top may cut: then only a lag
      // larger than the rows cut off is told.
      if (stats.percentile_spans() < ok_spans) {
        text += fmt::format(" over {} of {} ok spans", stats.percentile_spans(), ok_spans);
      }
      if (stats.groups_folded() > 0) {
        text += fmt::format("; {} groups folded into (other)", stats.groups_folded());
      }
      return text;
    }
    case v1::STATS_SOURCE_SPANS:
      if (stats.percentiles_exact()) return "; over the stored spans; exact percentiles";
      // More OK spans than the daemon keeps exact (max_query_durations_bytes).
      return fmt::format(
          "; over the stored spans; percentiles ±{:.1f}% (sketched: too many to keep)",
          100 * stats.percentile_relative_error());
    default:
      return "";
  }
}

// The time in ops of the totals line: self time, which counts nested ops
// once, and the total with nesting where that differs.
std::string TimeInOpsText(const v1::GetStatsResponse& stats, bool self) {
  if (!self || stats.self_ns() == stats.total_ns()) {
    return FormatDuration(stats.total_ns()) + " in ops";
  }
  return fmt::format("{} in ops ({} with nested ops counted in each parent)",
                     FormatDuration(stats.self_ns()), FormatDuration(stats.total_ns()));
}

}  // namespace

grpc::Status FetchStats(Connection& connection, const v1::GetStatsRequest& request,
                        v1::GetStatsResponse* response) {
  const auto context = connection.NewContext();
  return connection.stub().GetStats(context.get(), request, response);
}

std::string RenderStatsTable(const v1::GetStatsResponse& stats, v1::GroupBy by, size_t width,
                             const Palette& palette, NodeColumn nodes, v1::StatsSort sort) {
  if (stats.rows().empty()) return "no spans match\n";
  // Fleet rows have no self time (not forwarded).
  const bool self = nodes == NodeColumn::kNone;
  std::vector<Column> columns = {{KeyHeader(by), Align::kLeft, true},
                                 {"COUNT", Align::kRight},
                                 {"TOTAL", Align::kRight},
                                 {"MEAN", Align::kRight},
                                 {"P50", Align::kRight},
                                 {"P95", Align::kRight},
                                 {"P99", Align::kRight},
                                 {"MAX", Align::kRight},
                                 {"SHARE", Align::kRight},
                                 {"", Align::kLeft}};
  if (self) {
    columns.insert(columns.begin() + 9, {"SELF%", Align::kRight});
    columns.insert(columns.begin() + 3, {"SELF", Align::kRight});
  }
  // The node column comes right after the key.
  if (nodes == NodeColumn::kNodeName) {
    columns.insert(columns.begin() + 1, {"NODE", Align::kLeft, true});
  }
  if (nodes == NodeColumn::kNodeCount) {
    columns.insert(columns.begin() + 1, {"NODES", Align::kRight});
  }
  Table table(std::move(columns));
  for (const v1::OpStats& row : stats.rows()) {
    const bool timed = row.ok_count() > 0;
    auto duration = [timed](uint64_t ns) { return timed ? FormatDuration(ns) : std::string("-"); };
    std::vector<Cell> cells = {
        row.key().empty() ? "-" : row.key(),
        std::to_string(row.count()),
        duration(row.total_ns()),
        duration(static_cast<uint64_t>(std::llround(row.mean_ns()))),
        duration(row.p50_ns()),
        duration(row.p95_ns()),
        duration(row.p99_ns()),
        duration(row.max_ns()),
        FormatShare(row.share()),
        Cell(
            RenderBar(sort == v1::STATS_SORT_SELF ? row.self_share() : row.share(), kShareBarWidth),
            Tone::kLaunch)};
    if (self) {
      cells.insert(cells.begin() + 9, Cell(FormatShare(row.self_share())));
      cells.insert(cells.begin() + 3, Cell(duration(row.self_ns())));
    }
    if (nodes == NodeColumn::kNodeName) cells.insert(cells.begin() + 1, Cell(row.node()));
    if (nodes == NodeColumn::kNodeCount) {
      cells.insert(cells.begin() + 1, Cell(std::to_string(row.nodes())));
    }
    table.AddRow(std::move(cells));
  }
  return table.Render(width, palette) + fmt::format("{} spans, {}{}\n", stats.spans(),
                                                    TimeInOpsText(stats, self), SourceText(stats));
}

std::string RenderThreadTable(const v1::GetStatsResponse& stats, size_t width) {
  if (stats.threads().empty()) return "no thread ran ops that match\n";
  Table table({{"THREAD", Align::kRight},
               {"OPS", Align::kRight},
               {"BUSY", Align::kRight},
               {"WALL", Align::kRight},
               {"BUSY%", Align::kRight}});
  for (const v1::ThreadBusy& thread : stats.threads()) {
    table.AddRow({std::to_string(thread.tid()), std::to_string(thread.ops()),
                  FormatDuration(thread.busy_ns()), FormatDuration(thread.wall_ns()),
                  FormatShare(thread.busy_share())});
  }
  const uint64_t threads = static_cast<uint64_t>(stats.threads_size()) + stats.threads_left_out();
  std::string left_out;
  if (stats.threads_left_out() > 0) {
    left_out = fmt::format(" ({} listed)", stats.threads_size());
  }
  return table.Render(width, Palette(false)) +
         fmt::format(
             "{} threads{}; BUSY is the self time of the ops each ran, WALL its first "
             "op's start to its last op's end; over the stored spans\n",
             threads, left_out);
}

int RunStats(Connection& connection, const StatsOptions& options) {
  v1::GetStatsRequest request;
  request.set_session_id(options.session_id);
  request.set_by(options.by);
  request.set_top(options.top);
  request.set_exact(options.exact);
  request.set_sort(options.sort);
  request.set_threads(options.threads);
  *request.mutable_filter() = ToOpFilter(options.filter);
  if (options.fleet) {
    request.set_fleet(true);
    *request.mutable_fleet_filter() = ToFleetFilter(options.fleet_filter);
    request.set_per_node(options.per_node);
  }
  v1::GetStatsResponse response;
  if (const grpc::Status status = FetchStats(connection, request, &response); !status.ok()) {
    return Fail(options.fleet ? ErrorFromRpc(status, connection.address())
                              : ErrorFromRpc(status, connection.address(), options.session_id));
  }
  // Figures from the stored spans cover only what the window kept.
  if (response.source() == v1::STATS_SOURCE_SPANS || options.threads)
    PrintTrimNoticeOf(connection, options.session_id);
  if (options.json) {
    fmt::print("{}\n", ToJson(response, options.threads).dump(2));
    return kExitOk;
  }
  const NodeColumn nodes = !options.fleet     ? NodeColumn::kNone
                           : options.per_node ? NodeColumn::kNodeName
                                              : NodeColumn::kNodeCount;
  fmt::print("{}", RenderStatsTable(response, options.by, OutputWidth(STDOUT_FILENO),
                                    Palette(ColoursWanted(STDOUT_FILENO)), nodes, options.sort));
  if (options.threads) {
    fmt::print("\n{}", RenderThreadTable(response, OutputWidth(STDOUT_FILENO)));
  }
  return kExitOk;
}

CommandSpec DescribeStatsCommand() {
  auto options = std::make_shared<StatsOptions>();
  CommandSpec stats("stats", "duration statistics of a session's ops");
  stats.footer =
      "Examples:\n  optrace stats 12\n  optrace stats 12 --by tag --top 10\n"
      "  optrace stats 12 --by target --json\n"
      "  optrace stats 12 --threads\n"
      "  optrace stats --fleet --by tag --name matmul --since 1h\n"
      "  optrace stats --fleet --per-node --name rms_norm";
  AddSessionOrFleetOptions(stats, &options->session_id, &options->fleet, &options->fleet_filter,
                           "statistics");
  stats.AddFlag("--per-node", &options->per_node, "with --fleet: one row per group and node")
      .Needs("--fleet");
  stats.AddWord("--by", Word(&options->by, ParseGroupByWord, GroupByWordList()), "group ops by");
  stats.Add("--top", &options->top, "only the N groups with the most time (0 = all)");
  stats.AddWord("--sort", Word(&options->sort, ParseStatsSortWord, StatsSortWordList()),
                "order groups by their total time, nested ops included, or by their self time");
  stats
      .AddFlag("--exact", &options->exact,
               "exact percentiles from a pass over the spans still stored, instead of the "
               "whole session's aggregates (percentiles within 0.8%)")
      .Excludes("--fleet");
  stats
      .AddFlag("--threads", &options->threads,
               "also each thread's busy share: the self time of the ops it ran over its wall "
               "time, from a pass over the spans still stored")
      .Excludes("--fleet");
  AddOpFilterOptions(stats, &options->filter);
  stats.AddJsonFlag(&options->json, "the statistics");
  stats.run = [options](Connection& connection) { return RunStats(connection, *options); };
  return stats;
}

}  // namespace optrace::cli
