#include "ui/ui_server.h"

#include <utility>

#include "ui/ui_api.h"
#include "ui/ui_diff.h"
#include "ui/ui_export.h"
#include "ui/ui_live.h"
#include "ui/ui_pages.h"
#include "ui/ui_token.h"

namespace optrace::cli {
namespace {

// 404 and 405 as the caller reads them: JSON for the API, text for pages.
http::HttpResponse RouteError(const http::HttpRequest& request, int status, std::string message) {
  if (request.path.starts_with("/api/")) return JsonErrorResponse(status, message);
  http::HttpResponse response;
  response.status = status;
  response.body = std::to_string(status) + " " + message + "\n";
  return response;
}

void AddSecurityHeaders(http::HttpResponse& response) {
  response.AddHeader("Content-Security-Policy", kUiContentSecurityPolicy)
      .AddHeader("Cache-Control", "no-store")
      .AddHeader("X-Content-Type-Options", "nosniff")
      .AddHeader("X-Frame-Options", "DENY")
      .AddHeader("Referrer-Policy", "no-referrer");
}

}  // namespace

UiHandler::UiHandler(UiAccess access, Connection& connection)
    : access_(std::move(access)), router_(RouteError) {
  AddUiPageRoutes(router_);
  AddUiApiRoutes(router_, connection);
  AddUiLiveRoutes(router_, connection);
  AddUiExportRoutes(router_, connection);
  AddUiDiffRoutes(router_, connection);
}

http::HttpResponse UiHandler::Handle(const http::HttpRequest& request) const {
  std::optional<http::HttpResponse> refusal = access_.Gate(request);
  http::HttpResponse response = refusal ? std::move(*refusal) : router_.Route(request);
  AddSecurityHeaders(response);
  return response;
}

Result<std::unique_ptr<UiServer>> UiServer::Start(int port, const std::string& token,
                                                  Connection& connection) {
  const std::optional<std::string> server_id = NewUiToken();
  if (!server_id) return Status::IoError("no random bytes for the server's cookie name");
  std::unique_ptr<UiServer> ui(new UiServer());
  ui->handler_ = std::make_unique<UiHandler>(
      UiAccess(token, UiCookieName(server_id->substr(0, 12))), connection);
  http::HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = port;
  // A browser opens up to 6 connections and keeps them alive: enough
  // threads that one page's fetches never wait behind its idle ones.
  options.threads = 8;
  options.max_waiting = 32;
  auto server = http::HttpServer::Start(
      options, [handler = ui->handler_.get()](const http::HttpRequest& request) {
        return handler->Handle(request);
      });
  if (!server.ok()) return server.status();
  ui->server_ = std::move(server).value();
  return ui;
}

}  // namespace optrace::cli
