#include "ui/ui_api.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <variant>

#include "json_convert.h"
#include "proto_names.h"
#include "ui/timeline_json.h"
#include "ui/ui_endpoint.h"

namespace optrace::cli {
namespace {

using http::HttpRequest;
using http::HttpResponse;

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
