// `optrace ui`'s HTTP server: the access rules (ui_access.h) before every
// route (pages, assets, the JSON API), and on every answer, refusals
// included, the headers that keep other sites out: a Content-Security-
// Policy that allows this server's own scripts, styles and fetches only
// and no framing, no caching, no sniffing, no Referer. No CORS header is
// ever sent, so no other origin may read an answer.
#ifndef OPTRACE_CLI_UI_UI_SERVER_H_
#define OPTRACE_CLI_UI_UI_SERVER_H_

#include <memory>
#include <string>

#include "common/status.h"
#include "connection.h"
#include "http/http_server.h"
#include "ui/ui_access.h"
#include "ui/ui_router.h"

namespace optrace::cli {

// The Content-Security-Policy of every answer.
inline constexpr const char* kUiContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// Answers requests as the server does, without a socket: what the unit
// tests drive. Thread-safe.
class UiHandler {
 public:
  // `connection` must outlive the handler.
  UiHandler(UiAccess access, Connection& connection);

  http::HttpResponse Handle(const http::HttpRequest& request) const;

 private:
  UiAccess access_;
  UiRouter router_;
};

// Serves on 127.0.0.1:`port` (0: a free one) until destroyed.
class UiServer {
 public:
  // Starts the server with `token`; `connection` must outlive it. Errors:
  // those of HttpServer::Start (the port is taken, ...).
  static Result<std::unique_ptr<UiServer>> Start(int port, const std::string& token,
                                                 Connection& connection);

  int port() const { return server_->port(); }

 private:
  UiServer() = default;
  std::unique_ptr<UiHandler> handler_;
  std::unique_ptr<http::HttpServer> server_;  // after handler_: stops before it goes
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_SERVER_H_
