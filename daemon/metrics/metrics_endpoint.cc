#include "metrics/metrics_endpoint.h"

#include <memory>
#include <string>
#include <utility>

#include "common/bearer_token.h"
#include "metrics/metrics_access.h"
#include "metrics/metrics_text.h"
#include "metrics/process_metrics.h"
#include "metrics/status_metrics.h"

namespace optrace::daemon {

std::string RenderMetrics(const v1::GetStatusResponse& status, const OpMetrics& ops,
                          std::string buffer) {
  MetricsText text(std::move(buffer));
  WriteStatusMetrics(status, &text);
  ops.WriteTo(&text);
  WriteProcessMetrics(&text);
  return text.Take();
}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const MetricsEndpointOptions& options, FullStatusSource status, const OpMetrics* ops) {
  auto address = ParseMetricsAddress(options.listen);
  if (!address.ok()) return address.status();
  std::string token;
  if (!options.token_file.empty()) {
    auto read = ReadTokenFile(options.token_file, "metrics_token_file");
    if (!read.ok()) return read.status();
    token = std::move(read).value();
  }
  if (Status allowed = CheckMetricsAccessRule(address.value(), !token.empty(), options.insecure);
      !allowed.ok()) {
    return allowed;
  }
  http::HttpServerOptions listen;
  listen.host = address.value().host;
  listen.port = address.value().port;
  const bool requires_token = !token.empty();
  auto server = http::HttpServer::Start(
      listen, [token, status = std::move(status), ops](const http::HttpRequest& request) {
        http::HttpResponse response;
        if (!token.empty() && !BearerTokenMatches(request.authorization, token)) {
          response.status = 401;
          response.AddHeader("WWW-Authenticate", "Bearer");
          response.body = "401 a bearer token is required (Authorization: Bearer ...)\n";
          return response;
        }
        if (request.path != "/metrics") {
          response.status = 404;
          response.body = "404 only /metrics is served here\n";
          return response;
        }
        v1::GetStatusResponse report;
        if (!status(&report)) {
          response.status = 503;
          response.body = "503 the daemon is busy; try again\n";
          return response;
        }
        response.content_type = std::string(kMetricsContentType);
        // Each server thread writes its scrapes into one buffer of its own
        // (a scrape is megabytes: a fresh one would fault in every page
        // again). The server holds it while it sends, and a thread sends
        // its answer before it takes the next request.
        thread_local std::shared_ptr<std::string> buffer;
        if (!buffer || buffer.use_count() > 1) buffer = std::make_shared<std::string>();
        *buffer = RenderMetrics(report, *ops, std::move(*buffer));
        response.shared_body = buffer;
        return response;
      });
  if (!server.ok()) return server.status();
  return std::unique_ptr<MetricsEndpoint>(
      new MetricsEndpoint(std::move(server).value(), requires_token));
}

}  // namespace optrace::daemon
