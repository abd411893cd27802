#include "ops_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "exit_codes.h"
#include "human_format.h"
#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "table.h"
#include "terminal.h"
#include "text_width.h"
#include "trim_notice.h"

namespace optrace::cli {
namespace {

// The spans of `options` (at most `options.limit`), page by page; sets
// `*more` when the daemon has more than the limit.
grpc::Status FetchSpans(Connection& connection, const OpsOptions& options,
                        std::vector<v1::Span>* spans, bool* more) {
  v1::QueryOpsRequest request;
  request.set_session_id(options.session_id);
  *request.mutable_filter() = ToOpFilter(options.filter);
  if (options.fleet) {
    request.set_fleet(true);
    *request.mutable_fleet_filter() = ToFleetFilter(options.fleet_filter);
  }
  *more = false;
  while (true) {
    const uint32_t wanted =
        options.limit == 0 ? kOpsPageSize : options.limit - static_cast<uint32_t>(spans->size());
    request.set_limit(std::min(wanted, kOpsPageSize));
    const auto context = connection.NewContext(std::nullopt);
    const auto reader = connection.stub().QueryOps(context.get(), request);
    v1::QueryOpsResponse page;
    std::string next_cursor;
    while (reader->Read(&page)) {
      for (v1::Span& span : *page.mutable_spans()) spans->push_back(std::move(span));
      next_cursor = page.next_cursor();
    }
    if (grpc::Status status = reader->Finish(); !status.ok()) return status;
    if (next_cursor.empty()) return grpc::Status::OK;
    if (options.limit != 0 && spans->size() >= options.limit) {
      *more = true;
      return grpc::Status::OK;
    }
    request.set_cursor(next_cursor);
  }
}

// The text of the span lines of `spans` in session `session`: each
// distinct location asked once (GetSource); a location the session has no
// listing of, or that is not file:line, gets "". Other failures end it.
grpc::Status FetchSourceTexts(Connection& connection, uint64_t session,
                              const std::vector<v1::Span>& spans, SourceTexts* texts) {
  for (const v1::Span& span : spans) {
    if (span.source_location().empty() || texts->contains(span.source_location())) continue;
    v1::GetSourceRequest request;
    request.set_session_id(session);
    request.set_source_location(span.source_location());
    request.set_context(1);  // the line itself is all the column shows
    v1::GetSourceResponse source;
    const auto context = connection.NewContext();
    const grpc::Status status = connection.stub().GetSource(context.get(), request, &source);
    std::string& text = (*texts)[span.source_location()];
    if (status.error_code() == grpc::StatusCode::NOT_FOUND ||
        status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      continue;
    }
    if (!status.ok()) return status;
    const int64_t index = int64_t{source.line()} - int64_t{source.first_line()};
    if (index >= 0 && index < source.lines_size()) text = source.lines(static_cast<int>(index));
  }
  return grpc::Status::OK;
}

// `text` without the blanks around it.
std::string Stripped(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

}  // namespace

std::string RenderOpsTable(const std::vector<v1::Span>& spans, int64_t start_unix_ns, size_t width,
                           const Palette& palette, bool fleet, const SourceTexts* sources) {
  std::vector<Column> columns = {
      {"START", Align::kRight},    {"ID", Align::kRight},        {"NAME", Align::kLeft, true},
      {"TAG", Align::kLeft, true}, {"DEVICE", Align::kLeft},     {"DURATION", Align::kRight},
      {"SELF", Align::kRight},     {"ON DEVICE", Align::kRight}, {"STATUS", Align::kLeft}};
  // Fleet spans: which node and session, right after the time.
  if (fleet) {
    columns.insert(columns.begin() + 1, {{"NODE", Align::kLeft, true}, {"SESSION", Align::kRight}});
  }
  if (sources != nullptr) columns.push_back({"SOURCE", Align::kLeft, true});
  Table table(std::move(columns));
  for (const v1::Span& span : spans) {
    const bool ok = span.status() == v1::SPAN_STATUS_OK;
    std::vector<Cell> cells = {
        FormatDurationChange(span.start_unix_ns() - start_unix_ns),
        std::to_string(span.op_id()),
        span.name(),
        span.tag().empty() ? "-" : span.tag(),
        DeviceWord(span.device(), /*with_stream=*/true),
        span.has_duration_ns() ? FormatDuration(span.duration_ns()) : "-",
        span.has_self_ns() ? FormatDuration(span.self_ns()) : "-",
        span.has_device_duration_ns() ? FormatDuration(span.device_duration_ns()) : "-",
        Cell(std::string(SpanStatusWord(span.status())), ok ? Tone::kPlain : Tone::kProblem)};
    if (fleet) {
      cells.insert(cells.begin() + 1, {Cell(span.node()), Cell(std::to_string(span.session_id()))});
    }
    if (sources != nullptr) {
      const auto it = sources->find(span.source_location());
      cells.emplace_back(it == sources->end() ? ""
                                              : FitToWidth(Stripped(it->second), kSourceTextWidth));
    }
    table.AddRow(std::move(cells));
  }
  return table.Render(width, palette);
}

int RunOps(Connection& connection, const OpsOptions& options) {
  // A session first: its start anchors the START column, and an unknown
  // id gets its clear message before any paging. The fleet has no session:
  // times are from its first span.
  int64_t anchor_unix_ns = 0;
  if (!options.fleet) {
    v1::GetSessionRequest session_request;
    session_request.set_session_id(options.session_id);
    v1::GetSessionResponse session;
    const auto context = connection.NewContext();
    const grpc::Status status =
        connection.stub().GetSession(context.get(), session_request, &session);
    if (!status.ok()) return Fail(ErrorFromRpc(status, connection.address(), options.session_id));
    anchor_unix_ns = session.session().start_unix_ns();
    PrintTrimNotice(session.session());
  }

  std::vector<v1::Span> spans;
  bool more = false;
  const grpc::Status status = FetchSpans(connection, options, &spans, &more);
  if (!status.ok()) {
    return Fail(options.fleet ? ErrorFromRpc(status, connection.address())
                              : ErrorFromRpc(status, connection.address(), options.session_id));
  }
  SourceTexts sources;
  if (options.source) {
    if (grpc::Status fetched = FetchSourceTexts(connection, options.session_id, spans, &sources);
        !fetched.ok()) {
      return Fail(ErrorFromRpc(fetched, connection.address()));
    }
  }
  if (options.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const v1::Span& span : spans) {
      rows.push_back(ToJson(span));
      if (options.source) rows.back()["source"] = sources[span.source_location()];
    }
    nlohmann::json document{{"spans", rows}, {"more", more}};
    if (options.fleet) {
      document["fleet"] = true;
    } else {
      document["session_id"] = options.session_id;
    }
    fmt::print("{}\n", document.dump(2));
    return kExitOk;
  }
  if (spans.empty()) {
    fmt::print("{}\n", options.fleet
                           ? std::string("no spans in the fleet match")
                           : fmt::format("no spans in session {} match", options.session_id));
    return kExitOk;
  }
  if (options.fleet) {
    anchor_unix_ns = spans.front().start_unix_ns();
    fmt::print("times from {} (the first span's start)\n", FormatWallTime(anchor_unix_ns));
  }
  fmt::print("{}", RenderOpsTable(spans, anchor_unix_ns, OutputWidth(STDOUT_FILENO),
                                  Palette(ColoursWanted(STDOUT_FILENO)), options.fleet,
                                  options.source ? &sources : nullptr));
  if (more) {
    fmt::print("first {} spans shown; --limit N shows more, --limit 0 all\n", spans.size());
  }
  return kExitOk;
}

CommandSpec DescribeOpsCommand() {
  auto options = std::make_shared<OpsOptions>();
  CommandSpec ops("ops", "list a session's ops (spans) in start order");
  ops.footer =
      "Examples:\n  optrace ops 12\n  optrace ops 12 --name '^matmul' --min-duration 1ms\n"
      "  optrace ops 12 --status incomplete --limit 0 --json\n"
      "  optrace ops 12 --name matmul --source\n"
      "  optrace ops --fleet --node gpu-7 --name rms_norm --since 1h";
  AddSessionOrFleetOptions(ops, &options->session_id, &options->fleet, &options->fleet_filter,
                           "spans");
  AddOpFilterOptions(ops, &options->filter);
  ops.Add("--limit", &options->limit, "at most this many spans (0 = all)").ShowDefault();
  ops.AddFlag("--source", &options->source,
              "add a SOURCE column: the text of each span's line, from the listings its "
              "producer shipped")
      .Excludes("--fleet");
  ops.AddJsonFlag(&options->json, "the spans");
  ops.run = [options](Connection& connection) { return RunOps(connection, *options); };
  return ops;
}

}  // namespace optrace::cli
