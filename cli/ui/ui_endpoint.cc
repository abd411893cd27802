#include "ui/ui_endpoint.h"

#include <charconv>

#include "rpc_error.h"

namespace optrace::cli {

http::HttpResponse JsonResponse(const nlohmann::json& body) {
  http::HttpResponse response;
  response.content_type = "application/json";
  response.body = body.dump();
  return response;
}

http::HttpResponse JsonErrorResponse(int status, std::string_view message) {
  http::HttpResponse response = JsonResponse({{"status", status}, {"message", message}});
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

http::HttpResponse RpcErrorResponse(const grpc::Status& status, const Connection& connection,
                                    std::optional<uint64_t> session_id) {
  return JsonErrorResponse(HttpStatusOfRpc(status.error_code()),
                           ErrorFromRpc(status, connection.address(), session_id).message);
}

std::optional<bool> ParseBoolWord(std::string_view text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  return std::nullopt;
}

}  // namespace optrace::cli
