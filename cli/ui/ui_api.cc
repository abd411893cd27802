#include "ui/ui_api.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>
#include <variant>

#include "json_convert.h"
#include "proto_names.h"
#include "rpc_error.h"
#include "ui/timeline_json.h"

namespace optrace::cli {
namespace {

using http::HttpRequest;
using http::HttpResponse;

HttpResponse JsonResponse(const nlohmann::json& body) {
  HttpResponse response;
  response.content_type = "application/json";
  response.body = body.dump();
  return response;
}

// The answer of a failed call about `session_id` (when it was about one).
HttpResponse RpcErrorResponse(const grpc::Status& status, const Connection& connection,
                              std::optional<uint64_t> session_id) {
  return JsonErrorResponse(HttpStatusOfRpc(status.error_code()),
                           ErrorFromRpc(status, connection.address(), session_id).message);
}

// A query parameter parsed by `parse`, `fallback` when absent; a 400
// response naming it and `words` when it is there but not one of them.
template <typename T>
std::variant<T, HttpResponse> QueryWord(const HttpRequest& request, const std::string& name,
                                        std::optional<T> (*parse)(std::string_view), T fallback,
                                        const std::string& words) {
  const auto found = request.query.find(name);
  if (found == request.query.end()) return fallback;
  if (std::optional<T> value = parse(found->second)) return *value;
  return JsonErrorResponse(400, name + "=" + found->second + " is not one of: " + words);
}

std::optional<bool> ParseBoolWord(std::string_view text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  return std::nullopt;
}

// `text` as a whole number of type T, all of it (a sign only for a signed
// T), in T's range; nullopt otherwise.
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  T value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// Makes the unary call `call` with `request` and answers its response as
// JSON, or its error (about `session_id`, when the call is about one).
template <typename Request, typename Response>
HttpResponse Ask(Connection& connection,
                 grpc::Status (v1::OpTrace::Stub::*call)(grpc::ClientContext*, const Request&,
                                                         Response*),
                 const Request& request, std::optional<uint64_t> session_id) {
  Response response;
  const auto context = connection.NewContext();
  const grpc::Status status = (connection.stub().*call)(context.get(), request, &response);
  if (!status.ok()) return RpcErrorResponse(status, connection, session_id);
  return JsonResponse(ToJson(response));
}

HttpResponse ListSessions(Connection& connection, const HttpRequest& request) {
  auto all = QueryWord<bool>(request, "all", ParseBoolWord, true, "0, 1, false, true");
  if (auto* error = std::get_if<HttpResponse>(&all)) return std::move(*error);
  auto limit =
      QueryWord<uint32_t>(request, "limit", ParseWhole<uint32_t>, 0, "a count of 0 to 4294967295");
  if (auto* error = std::get_if<HttpResponse>(&limit)) return std::move(*error);
  v1::ListSessionsRequest list;
  list.set_all(std::get<bool>(all));
  list.set_limit(std::get<uint32_t>(limit));
  return Ask(connection, &v1::OpTrace::Stub::ListSessions, list, std::nullopt);
}

HttpResponse GetSession(Connection& connection, uint64_t session_id) {
  v1::GetSessionRequest get;
  get.set_session_id(session_id);
  return Ask(connection, &v1::OpTrace::Stub::GetSession, get, session_id);
}

HttpResponse GetStats(Connection& connection, const HttpRequest& request, uint64_t session_id) {
  auto by =
      QueryWord<v1::GroupBy>(request, "by", ParseGroupByWord, v1::GROUP_BY_NAME, GroupByWordList());
  if (auto* error = std::get_if<HttpResponse>(&by)) return std::move(*error);
  auto sort = QueryWord<v1::StatsSort>(request, "sort", ParseStatsSortWord, v1::STATS_SORT_TOTAL,
                                       StatsSortWordList());
  if (auto* error = std::get_if<HttpResponse>(&sort)) return std::move(*error);
  v1::GetStatsRequest get;
  get.set_session_id(session_id);
  get.set_by(std::get<v1::GroupBy>(by));
  get.set_sort(std::get<v1::StatsSort>(sort));
  return Ask(connection, &v1::OpTrace::Stub::GetStats, get, session_id);
}

HttpResponse GetSteps(Connection& connection, uint64_t session_id) {
  v1::GetStepsRequest get;
  get.set_session_id(session_id);
  return Ask(connection, &v1::OpTrace::Stub::GetSteps, get, session_id);
}

// The daemon checks the range and width (naming start_unix_ns,
// end_unix_ns or width); here only that each is a number.
HttpResponse GetTimeline(Connection& connection, const HttpRequest& request, uint64_t session_id) {
  const std::string ns_words = "a time in Unix nanoseconds";
  auto from = QueryWord<int64_t>(request, "from", ParseWhole<int64_t>, 0, ns_words);
  if (auto* error = std::get_if<HttpResponse>(&from)) return std::move(*error);
  auto to = QueryWord<int64_t>(request, "to", ParseWhole<int64_t>, 0, ns_words);
  if (auto* error = std::get_if<HttpResponse>(&to)) return std::move(*error);
  auto width =
      QueryWord<uint32_t>(request, "width", ParseWhole<uint32_t>, 1000, "a count of pixels");
  if (auto* error = std::get_if<HttpResponse>(&width)) return std::move(*error);
  v1::GetTimelineRequest get;
  get.set_session_id(session_id);
  get.set_start_unix_ns(std::get<int64_t>(from));
  get.set_end_unix_ns(std::get<int64_t>(to));
  get.set_width(std::get<uint32_t>(width));
  return Ask(connection, &v1::OpTrace::Stub::GetTimeline, get, session_id);
}

}  // namespace

HttpResponse JsonErrorResponse(int status, std::string_view message) {
  HttpResponse response = JsonResponse({{"status", status}, {"message", message}});
  response.status = status;
  return response;
}

int HttpStatusOfRpc(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
      return 400;
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 502;
  }
}

void AddUiApiRoutes(UiRouter& router, Connection& connection) {
  Connection* daemon = &connection;
  router.Add("GET", "/api/sessions", [daemon](const HttpRequest& request, const RouteMatch&) {
    return ListSessions(*daemon, request);
  });
  router.Add("GET", "/api/sessions/{id}", [daemon](const HttpRequest&, const RouteMatch& match) {
    return GetSession(*daemon, match.ids[0]);
  });
  router.Add("GET", "/api/sessions/{id}/stats",
             [daemon](const HttpRequest& request, const RouteMatch& match) {
               return GetStats(*daemon, request, match.ids[0]);
             });
  router.Add("GET", "/api/sessions/{id}/steps",
             [daemon](const HttpRequest&, const RouteMatch& match) {
               return GetSteps(*daemon, match.ids[0]);
             });
  router.Add("GET", "/api/sessions/{id}/timeline",
             [daemon](const HttpRequest& request, const RouteMatch& match) {
               return GetTimeline(*daemon, request, match.ids[0]);
             });
}

}  // namespace optrace::cli
