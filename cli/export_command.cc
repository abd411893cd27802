#include "export_command.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "exit_codes.h"
#include "human_format.h"
#include "interrupt_watcher.h"
#include "progress_bar.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "terminal.h"
#include "trim_notice.h"

namespace optrace::cli {
namespace {

constexpr std::string_view kPartialSuffix = ".partial";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// `session_start_unix_ns` + `offset_ns`, saturating at int64_t's max.
int64_t AfterStart(int64_t session_start_unix_ns, uint64_t offset_ns) {
  const uint64_t room = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) -
                        static_cast<uint64_t>(std::max<int64_t>(session_start_unix_ns, 0));
  return std::max<int64_t>(session_start_unix_ns, 0) +
         static_cast<int64_t>(std::min(offset_ns, room));
}

// The start of `session_id`, for a range given after it.
grpc::Status SessionStart(Connection& connection, uint64_t session_id, int64_t* start_unix_ns) {
  v1::GetSessionRequest request;
  request.set_session_id(session_id);
  v1::GetSessionResponse response;
  const auto context = connection.NewContext();
  const grpc::Status status = connection.stub().GetSession(context.get(), request, &response);
  *start_unix_ns = response.session().start_unix_ns();
  return status;
}

}  // namespace

std::pair<int64_t, int64_t> ExportRangeOf(const ExportOptions& options,
                                          int64_t session_start_unix_ns) {
  if (!options.from_given && !options.to_given) return {0, 0};
  // The daemon takes start 0 as "not set": a range from the epoch starts at 1 ns.
  const int64_t start = std::max<int64_t>(
      AfterStart(session_start_unix_ns, options.from_given ? options.from_ns : 0), 1);
  const int64_t end = options.to_given ? AfterStart(session_start_unix_ns, options.to_ns)
                                       : std::numeric_limits<int64_t>::max();
  return {start, end};
}

std::optional<CliError> CheckExportRange(const ExportOptions& options) {
  const uint64_t from_ns = options.from_given ? options.from_ns : 0;
  if (!options.to_given || options.to_ns > from_ns) return std::nullopt;
  return CliError{kExitUsage,
                  fmt::format("--to {} is not after {}", FormatDuration(options.to_ns),
                              options.from_given ? "--from " + FormatDuration(options.from_ns)
                                                 : std::string("the session's start"))};
}

std::string DescribeExport(uint64_t session_id, v1::ExportFormat format, uint64_t spans,
                           uint64_t bytes, const std::string& path) {
  std::string line = fmt::format("wrote session {} as {} ({} spans, {}) to {}", session_id,
                                 ExportFormatDescription(format), spans, FormatBytes(bytes), path);
  if (format == v1::EXPORT_FORMAT_CHROME_JSON) {
    line += "; open it in https://ui.perfetto.dev or chrome://tracing";
  } else if (format == v1::EXPORT_FORMAT_PERFETTO) {
    line += fmt::format("; open it in https://ui.perfetto.dev or with trace_processor {}", path);
  } else if (format == v1::EXPORT_FORMAT_SQLITE) {
    line += fmt::format("; open it with sqlite3 {}", path);
  }
  return line;
}

int RunExport(Connection& connection, const ExportOptions& options) {
  std::error_code ec;
  const std::string path =
      std::filesystem::absolute(options.output, ec).lexically_normal().string();
  const std::string partial = path + std::string(kPartialSuffix);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(partial.c_str(), "wb"));
  if (!file) {
    return Fail({kExitFailure, fmt::format("cannot write {}: {}", partial, std::strerror(errno))});
  }
  auto abandon = [&](CliError error) {
    file.reset();
    std::remove(partial.c_str());
    return Fail(error);
  };

  v1::ExportRequest request;
  request.set_session_id(options.session_id);
  request.set_format(options.format);
  if (options.from_given || options.to_given) {
    int64_t session_start = 0;
    const grpc::Status status = SessionStart(connection, options.session_id, &session_start);
    if (!status.ok()) {
      return abandon(ErrorFromRpc(status, connection.address(), options.session_id));
    }
    const auto [start, end] = ExportRangeOf(options, session_start);
    request.set_start_unix_ns(start);
    request.set_end_unix_ns(end);
  }
  const auto context = connection.NewContext(std::nullopt);
  InterruptWatcher interrupts([&context] { context->TryCancel(); });
  const auto reader = connection.stub().Export(context.get(), request);
  ProgressBar progress(stderr, IsTerminal(STDERR_FILENO), "exporting", "spans");
  v1::ExportChunk chunk;
  uint64_t span_count = 0;
  uint64_t spans_done = 0;
  uint64_t bytes = 0;
  bool first = true;
  bool write_failed = false;
  int write_errno = 0;
  while (reader->Read(&chunk)) {
    if (first) span_count = chunk.span_count();
    first = false;
    spans_done = chunk.spans_done();
    const std::string& data = chunk.data();
    if (!write_failed && std::fwrite(data.data(), 1, data.size(), file.get()) != data.size()) {
      write_failed = true;
      write_errno = errno;
      context->TryCancel();
    }
    bytes += data.size();
    progress.Update(spans_done, span_count);
  }
  const grpc::Status status = reader->Finish();
  progress.Clear();
  if (interrupts.interrupted()) {
    return abandon({kExitInterrupted, fmt::format("export interrupted; {} was not written", path)});
  }
  if (write_failed) {
    return abandon(
        {kExitFailure, fmt::format("cannot write {}: {}", partial, std::strerror(write_errno))});
  }
  if (!status.ok()) return abandon(ErrorFromRpc(status, connection.address(), options.session_id));
  if (std::fflush(file.get()) != 0 || std::fclose(file.release()) != 0) {
    const int close_errno = errno;
    std::remove(partial.c_str());
    return Fail(
        {kExitFailure, fmt::format("cannot write {}: {}", partial, std::strerror(close_errno))});
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(partial.c_str());
    return Fail({kExitFailure, fmt::format("cannot rename {} to {}: {}", partial, path,
                                           std::strerror(rename_errno))});
  }
  fmt::print("{}\n", DescribeExport(options.session_id, options.format,
                                    span_count > 0 ? span_count : spans_done, bytes, path));
  // The file holds what is stored: say when that is not the whole session.
  PrintTrimNoticeOf(connection, options.session_id);
  return kExitOk;
}

CommandSpec DescribeExportCommand() {
  auto options = std::make_shared<ExportOptions>();
  CommandSpec exp("export", "write a session to a file");
  exp.footer =
      "Examples:\n  optrace export 12 --format chrome -o run.json\n"
      "  optrace export 12 --format perfetto -o run.pftrace\n"
      "  optrace export 12 --format csv -o run.csv\n"
      "  optrace export 12 --format sqlite -o run.db\n"
      "  optrace export 12 --format perfetto --from 2s --to 2.5s -o step.pftrace\n"
      "--from and --to are times after the session's start, as `optrace ops` shows START;\n"
      "the file holds the spans that overlap [--from, --to) and the marks in it.";
  exp.Add("SESSION", &options->session_id, "the session id").Required();
  exp.AddWord("--format", Word(&options->format, ParseExportFormatWord, ExportFormatWordList()),
              "the file format")
      .Required();
  exp.Add("-o,--output", &options->output, "the file to write").Required();
  exp.AddDuration("--from", &options->from_ns,
                  "only spans that overlap the range from this long after the session's start")
      .Given(&options->from_given);
  exp.AddDuration("--to", &options->to_ns,
                  "only spans that start before this long after the session's start")
      .Given(&options->to_given);
  exp.check = [options] { return CheckExportRange(*options); };
  exp.run = [options](Connection& connection) { return RunExport(connection, *options); };
  return exp;
}

}  // namespace optrace::cli
