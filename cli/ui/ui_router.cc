#include "ui/ui_router.h"

#include <charconv>
#include <optional>
#include <utility>

namespace optrace::cli {
namespace {

constexpr std::string_view kIdSegment = "{id}";

// "/a/b/" -> {"a", "b", ""}; "/" -> {""}.
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> segments;
  path.remove_prefix(path.starts_with('/') ? 1 : 0);
  while (true) {
    const size_t slash = path.find('/');
    segments.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return segments;
    path.remove_prefix(slash + 1);
  }
}

// Whether `path` fits `pattern`, filling `match` with its ids.
bool Matches(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
             RouteMatch* match) {
  if (pattern.size() != path.size()) return false;
  match->ids.clear();
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kIdSegment) {
      const std::optional<uint64_t> id = ParseRouteId(path[i]);
      if (!id) return false;
      match->ids.push_back(*id);
    } else if (pattern[i] != path[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<uint64_t> ParseRouteId(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0) return std::nullopt;
  return value;
}

UiRouter::UiRouter(RouteErrorResponder on_error) : on_error_(std::move(on_error)) {}

void UiRouter::Add(std::string method, std::string_view pattern, RouteHandler handler) {
  routes_.push_back({std::move(method), Segments(pattern), std::move(handler)});
}

http::HttpResponse UiRouter::Route(const http::HttpRequest& request) const {
  if (!request.path.starts_with('/')) {
    return on_error_(request, 404, "no page or endpoint " + request.path);
  }
  const std::vector<std::string> path = Segments(request.path);
  std::string allowed;  // methods of the routes whose pattern matches
  RouteMatch match;
  for (const Entry& route : routes_) {
    if (!Matches(route.segments, path, &match)) continue;
    if (route.method == request.method) return route.handler(request, match);
    if (allowed.find(route.method) == std::string::npos) {
      allowed += (allowed.empty() ? "" : ", ") + route.method;
    }
  }
  if (allowed.empty()) return on_error_(request, 404, "no page or endpoint " + request.path);
  http::HttpResponse response =
      on_error_(request, 405, request.method + " is not served for " + request.path);
  response.AddHeader("Allow", allowed);
  return response;
}

}  // namespace optrace::cli
