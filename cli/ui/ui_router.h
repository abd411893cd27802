// The server side of `optrace ui`'s URLs: each route a method, a path
// pattern and a handler. A pattern is literal segments and `{id}`
// segments, each matching a decimal session id (1 to 20 digits that fit
// 64 bits): "/api/sessions/{id}/stats". Pages, assets and the JSON API
// are all routes; a new page is one more.
#ifndef OPTRACE_CLI_UI_UI_ROUTER_H_
#define OPTRACE_CLI_UI_UI_ROUTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_server.h"

namespace optrace::cli {

// The `{id}` values of a matched path, in the pattern's order.
struct RouteMatch {
  std::vector<uint64_t> ids;
};

// Answers a request that matched its route. Called on the server's
// threads, several at once: must be thread-safe.
using RouteHandler = std::function<http::HttpResponse(const http::HttpRequest&, const RouteMatch&)>;

// Answers a request no route takes: `status` is 404 (no route of that
// path) or 405 (no route of that method: the response gets an Allow
// header from the router); `message` says which.
using RouteErrorResponder =
    std::function<http::HttpResponse(const http::HttpRequest&, int status, std::string message)>;

class UiRouter {
 public:
  explicit UiRouter(RouteErrorResponder on_error);

  // Adds a route. REQUIRES: before the first Route (not thread-safe with
  // it); `pattern` starts with "/".
  void Add(std::string method, std::string_view pattern, RouteHandler handler);

  // The answer of the first route whose method and pattern match, else
  // the error responder's. Never throws for any path. Thread-safe once
  // every route is added.
  http::HttpResponse Route(const http::HttpRequest& request) const;

 private:
  struct Entry {
    std::string method;
    std::vector<std::string> segments;  // "{id}" for a parameter
    RouteHandler handler;
  };

  RouteErrorResponder on_error_;
  std::vector<Entry> routes_;
};

// `text` as a session id: 1 to 20 decimal digits whose value fits 64 bits
// and is not 0; nullopt otherwise.
std::optional<uint64_t> ParseRouteId(std::string_view text);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_ROUTER_H_
