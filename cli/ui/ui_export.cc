#include "ui/ui_export.h"

#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "proto_names.h"
#include "ui/ui_endpoint.h"

namespace optrace::cli {
namespace {

using http::HttpRequest;
using http::HttpResponse;

// One Export call as the download reads it: the daemon's stream and the
// chunk read before the answer began (to answer an error as JSON).
// Cancels the call when the download ends before the export does.
struct ExportDownload {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReader<v1::ExportChunk>> reader;
  v1::ExportChunk chunk;
  bool chunk_pending = false;
  bool finished = false;

  ExportDownload() = default;
  ExportDownload(const ExportDownload&) = delete;
  ExportDownload& operator=(const ExportDownload&) = delete;
  ~ExportDownload() {
    if (finished) return;
    context->TryCancel();
    (void)reader->Finish();
  }

  // Writes the next chunk; false once the export or the download ended.
  bool WriteNext(const std::function<bool(std::string_view)>& write) {
    if (!chunk_pending && !reader->Read(&chunk)) {
      finished = true;
      (void)reader->Finish();  // an error this late can only cut the file short
      return false;
    }
    chunk_pending = false;
    return write(chunk.data());
  }
};

// The file name and media type of `format`'s download.
std::pair<std::string, std::string> FileOf(v1::ExportFormat format) {
  switch (format) {
    case v1::EXPORT_FORMAT_CHROME_JSON:
      return {".json", "application/json"};
    case v1::EXPORT_FORMAT_CSV:
      return {".csv", "text/csv; charset=utf-8"};
    case v1::EXPORT_FORMAT_SQLITE:
      return {".db", "application/vnd.sqlite3"};
    default:
      return {".pftrace", "application/octet-stream"};
  }
}

HttpResponse Download(Connection& connection, const HttpRequest& request, uint64_t session_id) {
  auto format = QueryWord<v1::ExportFormat>(request, "format", ParseExportFormatWord,
                                            v1::EXPORT_FORMAT_PERFETTO, ExportFormatWordList());
  if (auto* error = std::get_if<HttpResponse>(&format)) return std::move(*error);
  // The daemon checks the range (naming start_unix_ns or end_unix_ns).
  const std::string ns_words = "a time in Unix nanoseconds";
  auto from = QueryWord<int64_t>(request, "from", ParseWhole<int64_t>, 0, ns_words);
  if (auto* error = std::get_if<HttpResponse>(&from)) return std::move(*error);
  auto to = QueryWord<int64_t>(request, "to", ParseWhole<int64_t>, 0, ns_words);
  if (auto* error = std::get_if<HttpResponse>(&to)) return std::move(*error);

  v1::ExportRequest exp;
  exp.set_session_id(session_id);
  exp.set_format(std::get<v1::ExportFormat>(format));
  exp.set_start_unix_ns(std::get<int64_t>(from));
  exp.set_end_unix_ns(std::get<int64_t>(to));
  auto download = std::make_shared<ExportDownload>();
  download->context = connection.NewContext(std::nullopt);
  download->reader = connection.stub().Export(download->context.get(), exp);
  // The first chunk, or the error that comes instead of it.
  download->chunk_pending = download->reader->Read(&download->chunk);
  if (!download->chunk_pending) {
    download->finished = true;
    const grpc::Status status = download->reader->Finish();
    if (!status.ok()) return RpcErrorResponse(status, connection, session_id);
  }
  const auto [extension, media_type] = FileOf(exp.format());
  HttpResponse response;
  response.content_type = media_type;
  response.AddHeader("Content-Disposition", "attachment; filename=\"session-" +
                                                std::to_string(session_id) + extension + "\"");
  response.stream = [download](const std::function<bool(std::string_view)>& write) {
    return !download->finished && download->WriteNext(write);
  };
  return response;
}

}  // namespace

void AddUiExportRoutes(UiRouter& router, Connection& connection) {
  Connection* daemon = &connection;
  router.Add("GET", "/api/sessions/{id}/export",
             [daemon](const HttpRequest& request, const RouteMatch& match) {
               return Download(*daemon, request, match.ids[0]);
             });
}

}  // namespace optrace::cli
