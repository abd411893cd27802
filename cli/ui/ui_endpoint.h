// What every JSON endpoint of `optrace ui` shares: its query parameters,
// each parsed by a word parser, absent ones defaulted, a bad one answered
// with a 400 that names it and the words it may take; its JSON answers;
// and its errors, a failed daemon call's included ({"status", "message"};
// docs/ui.md lists the statuses).
#ifndef OPTRACE_CLI_UI_UI_ENDPOINT_H_
#define OPTRACE_CLI_UI_UI_ENDPOINT_H_

#include <grpcpp/grpcpp.h>

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "connection.h"
#include "http/http_server.h"

namespace optrace::cli {

// `body` as a 200 application/json answer.
http::HttpResponse JsonResponse(const nlohmann::json& body);

// {"status": status, "message": message} with that HTTP status.
http::HttpResponse JsonErrorResponse(int status, std::string_view message);

// The HTTP status for a failed call's gRPC code: 400 INVALID_ARGUMENT,
// 403 PERMISSION_DENIED or UNAUTHENTICATED, 404 NOT_FOUND, 503
// UNAVAILABLE, 504 DEADLINE_EXCEEDED, 502 anything else.
int HttpStatusOfRpc(grpc::StatusCode code);

// The answer of a call to the daemon at `connection` that failed with
// `status`, about `session_id` when it was about one: the CLI's message
// for it (rpc_error.h) with HttpStatusOfRpc's status.
http::HttpResponse RpcErrorResponse(const grpc::Status& status, const Connection& connection,
                                    std::optional<uint64_t> session_id);

// The query parameter `name` of `request` parsed by `parse`; `fallback`
// when absent; a 400 response naming it and `words` when it is there but
// `parse` refuses it.
template <typename T>
std::variant<T, http::HttpResponse> QueryWord(const http::HttpRequest& request,
                                              const std::string& name,
                                              std::optional<T> (*parse)(std::string_view),
                                              T fallback, const std::string& words) {
  const auto found = request.query.find(name);
  if (found == request.query.end()) return fallback;
  if (std::optional<T> value = parse(found->second)) return *value;
  return JsonErrorResponse(400, name + "=" + found->second + " is not one of: " + words);
}

// "1"/"true" or "0"/"false"; nullopt for anything else.
std::optional<bool> ParseBoolWord(std::string_view text);

// `text` as a whole decimal number of type T, all of it (a sign only for
// a signed T), in T's range; nullopt for anything else.
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  T value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_ENDPOINT_H_
