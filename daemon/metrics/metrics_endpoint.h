// The metrics endpoint (optraced --metrics-listen): GET /metrics in the
// Prometheus text format, from the daemon's status, its op metrics and
// its process, behind the access rule of metrics_access.h.
#ifndef OPTRACE_DAEMON_METRICS_METRICS_ENDPOINT_H_
#define OPTRACE_DAEMON_METRICS_METRICS_ENDPOINT_H_

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "http/http_server.h"
#include "metrics/op_metrics.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// Fills a whole (not caller-limited) status report; false when the daemon
// cannot answer now (the drain thread is busy), which a scrape answers 503.
using FullStatusSource = std::function<bool(v1::GetStatusResponse*)>;

struct MetricsEndpointOptions {
  std::string listen;      // HOST:PORT (metrics_listen)
  std::string token_file;  // "" = no token
  bool insecure = false;   // serve without a token (metrics_insecure)
};

// Serves until destroyed. Answers: 200 with the metrics for GET /metrics;
// 401 (with WWW-Authenticate: Bearer) when a token is configured and the
// request does not carry it; 404 for any other path; 503 when the status
// cannot be read now. Thread rules: the server's threads call `status`
// and read `ops` concurrently with the daemon.
class MetricsEndpoint {
 public:
  // Reads the token file once, checks the access rule and starts the
  // server. `ops` must outlive the endpoint; `status` must stay callable
  // until it is destroyed. Errors: those of ParseMetricsAddress,
  // ReadBearerTokenFile, CheckMetricsAccessRule and HttpServer::Start.
  static Result<std::unique_ptr<MetricsEndpoint>> Start(const MetricsEndpointOptions& options,
                                                        FullStatusSource status,
                                                        const OpMetrics* ops);

  // The port bound.
  int port() const { return server_->port(); }

  // Whether requests must carry the token (for the start-up log).
  bool requires_token() const { return requires_token_; }

 private:
  MetricsEndpoint(std::unique_ptr<http::HttpServer> server, bool requires_token)
      : server_(std::move(server)), requires_token_(requires_token) {}

  std::unique_ptr<http::HttpServer> server_;
  bool requires_token_ = false;
};

// The body of one scrape: status, op and process metrics, written into
// `buffer` (emptied first; its room is reused). Thread rules: as
// MetricsEndpoint's.
std::string RenderMetrics(const v1::GetStatusResponse& status, const OpMetrics& ops,
                          std::string buffer = {});

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_METRICS_ENDPOINT_H_
