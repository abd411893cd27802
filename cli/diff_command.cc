#include "diff_command.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <vector>

#include "exit_codes.h"
#include "fleet_filter.h"
#include "human_format.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"

namespace optrace::cli {
namespace {

// "12 (train)" for the header line.
std::string SessionTitle(const v1::Session& session) {
  return session.label().empty() ? fmt::format("session {}", session.id())
                                 : fmt::format("session {} ({})", session.id(), session.label());
}

// What A and B are: merged into the JSON document, named in the header.
struct DiffSides {
  nlohmann::json json;  // {"session_a": ..., "session_b": ...} or fleet_a / fleet_b
  std::string title_a;
  std::string title_b;
};

// The sides of two sessions' diff.
DiffSides SessionSides(const SessionDiff& diff) {
  return {{{"session_a", ToJson(diff.a)}, {"session_b", ToJson(diff.b)}},
          SessionTitle(diff.a),
          SessionTitle(diff.b)};
}

// The --json document: `response` with `sides` merged in.
nlohmann::json ComparisonJson(const v1::CompareSessionsResponse& response, const DiffSides& sides) {
  nlohmann::json document = ToJson(response);
  document.update(sides.json);
  return document;
}

// Prints `response`, described by `sides`, as options.json says. Returns
// the exit code.
int PrintComparison(const v1::CompareSessionsResponse& response, const DiffOptions& options,
                    const DiffSides& sides) {
  if (options.json) {
    fmt::print("{}\n", ComparisonJson(response, sides).dump(2));
    return kExitOk;
  }
  fmt::print("A = {}\nB = {}\n", sides.title_a, sides.title_b);
  fmt::print("{}", RenderDiffTable(response, options.by, OutputWidth(STDOUT_FILENO),
                                   Palette(ColoursWanted(STDOUT_FILENO))));
  return kExitOk;
}

// A + B of `optrace diff --fleet`: one request, the sides described.
int RunFleetDiff(Connection& connection, const DiffOptions& options) {
  v1::CompareSessionsRequest request;
  request.set_by(options.by);
  request.set_fleet(true);
  *request.mutable_fleet_a() = options.fleet_a;
  *request.mutable_fleet_b() = options.fleet_b;
  *request.mutable_filter() = ToOpFilter(options.filter);
  v1::CompareSessionsResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().CompareSessions(context.get(), request, &response);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address()));
  return PrintComparison(
      response, options,
      {{{"fleet_a", ToJson(options.fleet_a)}, {"fleet_b", ToJson(options.fleet_b)}},
       DescribeFleetSelector(options.fleet_a),
       DescribeFleetSelector(options.fleet_b)});
}

// The CHANGE cell: increases red, decreases green.
Cell ChangeCell(int64_t change) {
  const Tone tone = change > 0 ? Tone::kProblem : change < 0 ? Tone::kComplete : Tone::kPlain;
  return Cell(FormatDurationChange(change), tone);
}

}  // namespace

std::optional<CliError> ParseDiffSides(const std::string& a, const std::string& b,
                                       DiffOptions* options) {
  const std::pair<const std::string&, const char*> sides[] = {{a, "A"}, {b, "B"}};
  for (int i = 0; i < 2; ++i) {
    const auto& [text, name] = sides[i];
    if (options->fleet) {
      const std::optional<v1::FleetFilter> side = ParseFleetSelector(text);
      if (!side) {
        return CliError{kExitUsage,
                        fmt::format("{} '{}' is not a fleet selector: give a node, node=NODE, "
                                    "label=LABEL, node=NODE,label=LABEL or *",
                                    name, text)};
      }
      *(i == 0 ? &options->fleet_a : &options->fleet_b) = *side;
      continue;
    }
    uint64_t id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
      return CliError{kExitUsage,
                      fmt::format("{} '{}' is not a session id (see optrace sessions; with "
                                  "--fleet, A and B select nodes or labels)",
                                  name, text)};
    }
    *(i == 0 ? &options->session_a : &options->session_b) = id;
  }
  return std::nullopt;
}

std::string RenderDiffTable(const v1::CompareSessionsResponse& comparison, v1::GroupBy by,
                            size_t width, const Palette& palette) {
  std::string out;
  const auto* rows = &comparison.rows();
  if (!comparison.fusions().empty()) {
    out = RenderFusionTable(comparison, width, palette) + "\n";
    rows = &comparison.unfused_rows();
  }
  std::vector<const v1::Comparison*> sorted;
  for (const v1::Comparison& row : *rows) sorted.push_back(&row);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const v1::Comparison* x, const v1::Comparison* y) {
                     return Magnitude(x->total_change_ns()) > Magnitude(y->total_change_ns());
                   });
  Table table({{by == v1::GROUP_BY_TAG ? "TAG" : "NAME", Align::kLeft, true},
               {"COUNT A", Align::kRight},
               {"COUNT B", Align::kRight},
               {"TOTAL A", Align::kRight},
               {"TOTAL B", Align::kRight},
               {"CHANGE", Align::kRight},
               {"B/A", Align::kRight}});
  for (const v1::Comparison* row : sorted) {
    Cell ratio = FormatRatio(row->total_ratio());
    if (row->only_in_a()) ratio = Cell("only in A", Tone::kComplete);
    if (row->only_in_b()) ratio = Cell("only in B", Tone::kWarning);
    // A session without the key has no total, not a total of zero.
    table.AddRow({row->key().empty() ? "-" : row->key(), std::to_string(row->count_a()),
                  std::to_string(row->count_b()),
                  row->only_in_b() ? "-" : FormatDuration(row->total_a_ns()),
                  row->only_in_a() ? "-" : FormatDuration(row->total_b_ns()),
                  ChangeCell(row->total_change_ns()), ratio});
  }
  if (!sorted.empty()) {
    out += table.Render(width, palette);
  } else {
    out +=
        comparison.fusions().empty() ? "neither session has spans\n" : "no ops outside fusions\n";
  }
  const uint64_t a = comparison.total_a_ns();
  const uint64_t b = comparison.total_b_ns();
  out += fmt::format("total: A {}, B {}", FormatDuration(a), FormatDuration(b));
  if (a > 0) {
    out += fmt::format(" ({}, {})",
                       FormatDurationChange(static_cast<int64_t>(b) - static_cast<int64_t>(a)),
                       FormatRatio(static_cast<double>(b) / static_cast<double>(a)));
  }
  return out + "\n";
}

std::string RenderFusionTable(const v1::CompareSessionsResponse& comparison, size_t width,
                              const Palette& palette) {
  Table table({{"FUSED IN B / PARTS", Align::kLeft, true},
               {"COUNT A", Align::kRight},
               {"COUNT B", Align::kRight},
               {"TOTAL A", Align::kRight},
               {"TOTAL B", Align::kRight},
               {"CHANGE", Align::kRight},
               {"B/A", Align::kRight},
               {"OPS SAVED", Align::kRight}});
  // A side without spans has no total, not a total of zero.
  const auto total = [](uint64_t count, uint64_t ns) {
    return count == 0 ? std::string("-") : FormatDuration(ns);
  };
  for (const v1::Fusion& fusion : comparison.fusions()) {
    const Cell ratio = fusion.group_count_a() == 0 ? Cell("not in A", Tone::kWarning)
                                                   : Cell(FormatRatio(fusion.total_ratio()));
    table.AddRow({fusion.name().empty() ? "-" : fusion.name(),
                  std::to_string(fusion.group_count_a()), std::to_string(fusion.group_count_b()),
                  total(fusion.group_count_a(), fusion.group_total_a_ns()),
                  total(fusion.group_count_b(), fusion.group_total_b_ns()),
                  ChangeCell(fusion.total_change_ns()), ratio, std::to_string(fusion.ops_saved())});
    table.AddRow({Cell("  (fused op)", Tone::kDim), std::to_string(fusion.fused_count_a()),
                  std::to_string(fusion.count_b()),
                  total(fusion.fused_count_a(), fusion.fused_total_a_ns()),
                  total(fusion.count_b(), fusion.total_b_ns()), "", "", ""});
    for (const v1::FusionPart& part : fusion.parts()) {
      std::vector<std::string> flags;
      if (part.empty()) flags.push_back("empty part");
      if (part.missing_in_a()) flags.push_back("missing in A");
      if (part.repeated()) flags.push_back("repeated");
      if (part.shared()) flags.push_back("shared");
      const Tone tone = part.empty() || part.missing_in_a() ? Tone::kWarning : Tone::kDim;
      table.AddRow({"  " + (part.empty() ? std::string("\"\"") : part.tag()),
                    std::to_string(part.count_a()), std::to_string(part.count_b()),
                    total(part.count_a(), part.total_a_ns()),
                    total(part.count_b(), part.total_b_ns()), "",
                    Cell(fmt::format("{}", fmt::join(flags, ", ")), tone), ""});
    }
    if (fusion.parts_not_listed() > 0) {
      table.AddRow({Cell(fmt::format("  ... {} more parts", fusion.parts_not_listed()), Tone::kDim),
                    "", "", "", "", "", "", ""});
    }
  }
  return table.Render(width, palette);
}

grpc::Status FetchSessionDiff(Connection& connection, uint64_t a, uint64_t b, v1::GroupBy by,
                              SessionDiff* out, std::optional<uint64_t>* failed_session) {
  // Each session first, so that an unknown one is named exactly.
  const std::pair<uint64_t, v1::Session*> sides[] = {{a, &out->a}, {b, &out->b}};
  for (const auto& [id, session] : sides) {
    v1::GetSessionRequest request;
    request.set_session_id(id);
    v1::GetSessionResponse response;
    const auto context = connection.NewContext();
    const grpc::Status status = connection.stub().GetSession(context.get(), request, &response);
    if (!status.ok()) {
      *failed_session = id;
      return status;
    }
    *session = response.session();
  }
  v1::CompareSessionsRequest request;
  request.set_session_a(a);
  request.set_session_b(b);
  request.set_by(by);
  const auto context = connection.NewContext();
  *failed_session = std::nullopt;
  return connection.stub().CompareSessions(context.get(), request, &out->comparison);
}

nlohmann::json SessionDiffJson(const SessionDiff& diff) {
  return ComparisonJson(diff.comparison, SessionSides(diff));
}

int RunDiff(Connection& connection, const DiffOptions& options) {
  if (options.fleet) return RunFleetDiff(connection, options);
  SessionDiff diff;
  std::optional<uint64_t> failed_session;
  const grpc::Status status = FetchSessionDiff(connection, options.session_a, options.session_b,
                                               options.by, &diff, &failed_session);
  if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), failed_session));
  return PrintComparison(diff.comparison, options, SessionSides(diff));
}

CommandSpec DescribeDiffCommand() {
  struct Parsed {
    DiffOptions options;
    std::string a, b;  // A and B as given: session ids or fleet selectors
  };
  auto parsed = std::make_shared<Parsed>();
  DiffOptions& options = parsed->options;
  CommandSpec diff("diff", "compare two sessions op by op");
  diff.footer =
      "Examples:\n  optrace diff 12 13\n  optrace diff 12 13 --by tag --json\n"
      "  optrace diff --fleet gpu-3 gpu-7 --since 1h\n"
      "  optrace diff --fleet label=unfused label=fused --by tag";
  diff.Add("A", &parsed->a,
           "the first session id (with --fleet: a node, node=NODE, "
           "label=LABEL, both comma-separated, or *)")
      .Required();
  diff.Add("B", &parsed->b, "the second session id (with --fleet: as A)").Required();
  diff.AddWord("--by", Word(&options.by, ParseCompareByWord, CompareByWordList()), "group ops by");
  diff.AddFlag("--fleet", &options.fleet,
               "compare spans of the fleet, from the ClickHouse the daemon forwards to, not two "
               "sessions");
  for (OptionSpec* filter : AddOpFilterOptions(diff, &options.filter)) {
    filter->Needs("--fleet").Group("Fleet filters (with --fleet)");
  }
  diff.AddJsonFlag(&options.json, "the comparison");
  diff.check = [parsed] { return ParseDiffSides(parsed->a, parsed->b, &parsed->options); };
  diff.run = [parsed](Connection& connection) { return RunDiff(connection, parsed->options); };
  return diff;
}

}  // namespace optrace::cli
