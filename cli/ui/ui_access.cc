#include "ui/ui_access.h"

#include <algorithm>
#include <utility>

#include "common/bearer_token.h"
#include "common/constant_time.h"
#include "common/loopback_host.h"

namespace optrace::cli {
namespace {

constexpr std::string_view kTokenParameter = "token";

bool IsDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsPlainPathChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
         c == '.' || c == '_' || c == '-';
}

std::string PercentEncoded(std::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    if (IsPlainPathChar(c) && c != '/') {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

http::HttpResponse Refusal(int status, std::string body) {
  http::HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace

UiAccess::UiAccess(std::string token, std::string cookie_name)
    : token_(std::move(token)), cookie_name_(std::move(cookie_name)) {}

std::string UiCookieName(std::string_view server_id) {
  return "optrace_ui_" + std::string(server_id);
}

bool IsLoopbackHostHeader(std::string_view host_untrusted) {
  std::string_view host = host_untrusted;
  std::string_view port;
  if (host.starts_with('[')) {  // [v6]:port
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view rest = host.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) return false;
      port = rest.substr(1);
      if (!IsDigits(port)) return false;
    }
    host = host.substr(0, close + 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
    if (!IsDigits(port)) return false;
  }
  // A bare "::1" without brackets is not a valid Host; IsLoopbackHost would
  // accept it, so it is refused here (the split above already broke it).
  return !host.empty() && IsLoopbackHost(host);
}

std::optional<std::string_view> FindCookie(std::string_view cookie_untrusted,
                                           std::string_view name) {
  while (!cookie_untrusted.empty()) {
    const size_t end = std::min(cookie_untrusted.find(';'), cookie_untrusted.size());
    std::string_view pair = cookie_untrusted.substr(0, end);
    cookie_untrusted.remove_prefix(std::min(end + 1, cookie_untrusted.size()));
    while (pair.starts_with(' ')) pair.remove_prefix(1);
    const size_t equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name) {
      return pair.substr(equals + 1);
    }
  }
  return std::nullopt;
}

std::string RedirectWithoutToken(std::string_view path,
                                 const std::map<std::string, std::string>& query) {
  const bool plain = path.starts_with('/') && !path.starts_with("//") &&
                     std::all_of(path.begin(), path.end(), IsPlainPathChar);
  std::string location = plain ? std::string(path) : "/";
  char separator = '?';
  for (const auto& [name, value] : query) {
    if (name == kTokenParameter) continue;
    location += separator + PercentEncoded(name) + "=" + PercentEncoded(value);
    separator = '&';
  }
  return location;
}

bool UiAccess::CarriesToken(const http::HttpRequest& request) const {
  if (const auto cookie = FindCookie(request.cookie, cookie_name_);
      cookie && ConstantTimeEquals(*cookie, token_)) {
    return true;
  }
  return BearerTokenMatches(request.authorization, token_);
}

std::optional<http::HttpResponse> UiAccess::Gate(const http::HttpRequest& request) const {
  if (!IsLoopbackHostHeader(request.host)) {
    return Refusal(403,
                   "403 this server answers only requests for 127.0.0.1, localhost or [::1]\n");
  }
  if (const auto url_token = request.query.find(std::string(kTokenParameter));
      url_token != request.query.end()) {
    if (!ConstantTimeEquals(url_token->second, token_)) {
      return Refusal(401, "401 the token in this URL is not this server's\n");
    }
    http::HttpResponse exchange = Refusal(303, "");
    exchange
        .AddHeader("Set-Cookie",
                   cookie_name_ + "=" + token_ + "; Path=/; HttpOnly; SameSite=Strict")
        .AddHeader("Location", RedirectWithoutToken(request.path, request.query));
    return exchange;
  }
  if (!CarriesToken(request)) {
    return Refusal(401,
                   "401 open the URL with ?token=... that `optrace ui` printed (or send "
                   "Authorization: Bearer TOKEN)\n");
  }
  return std::nullopt;
}

}  // namespace optrace::cli
