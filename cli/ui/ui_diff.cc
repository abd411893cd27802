#include "ui/ui_diff.h"

#include <utility>
#include <variant>

#include "diff_command.h"
#include "proto_names.h"
#include "ui/ui_endpoint.h"

namespace optrace::cli {
namespace {

http::HttpResponse Diff(Connection& connection, const http::HttpRequest& request, uint64_t a,
                        uint64_t b) {
  auto by = QueryWord<v1::GroupBy>(request, "by", ParseCompareByWord, v1::GROUP_BY_NAME,
                                   CompareByWordList());
  if (auto* error = std::get_if<http::HttpResponse>(&by)) return std::move(*error);
  SessionDiff diff;
  std::optional<uint64_t> failed_session;
  const grpc::Status status =
      FetchSessionDiff(connection, a, b, std::get<v1::GroupBy>(by), &diff, &failed_session);
  if (!status.ok()) return RpcErrorResponse(status, connection, failed_session);
  return JsonResponse(SessionDiffJson(diff));
}

}  // namespace

void AddUiDiffRoutes(UiRouter& router, Connection& connection) {
  Connection* daemon = &connection;
  router.Add("GET", "/api/diff/{id}/{id}",
             [daemon](const http::HttpRequest& request, const RouteMatch& match) {
               return Diff(*daemon, request, match.ids[0], match.ids[1]);
             });
}

}  // namespace optrace::cli
