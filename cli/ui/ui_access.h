// Who may use `optrace ui`'s server, checked before any route runs
// (docs/ui.md, "Security"):
//  - the Host header must name a loopback host (127.0.0.0/8, localhost,
//    [::1]) on any port, so that a page of another site that a DNS
//    rebinding pointed at 127.0.0.1 is refused (403), while an `ssh -L`
//    tunnel to another port still works;
//  - the request must carry the run's token: in its cookie, or as
//    "Authorization: Bearer TOKEN" (scripts), or in the URL's `token`
//    parameter, which is answered with a redirect to the same URL without
//    it and a cookie (HttpOnly, SameSite=Strict) holding it, so that the
//    token leaves the address bar, the history and any Referer. Anything
//    else is 401 with no data.
// Every comparison with the token takes the same time wherever a guess
// differs (common/constant_time.h).
#ifndef OPTRACE_CLI_UI_UI_ACCESS_H_
#define OPTRACE_CLI_UI_UI_ACCESS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "http/http_server.h"

namespace optrace::cli {

class UiAccess {
 public:
  // `token`: the run's secret (ui_token.h). `cookie_name`: the cookie that
  // holds it, distinct per server (cookies are shared by every port of a
  // host, so two servers must not overwrite each other's): UiCookieName.
  UiAccess(std::string token, std::string cookie_name);

  // The answer that replaces the request's own: 403 for a Host that is not
  // loopback, 303 (Set-Cookie, Location) for a request carrying the right
  // token in its URL, 401 for one without the right token anywhere; nullopt
  // when the request may go on to its route. Thread-safe (const).
  std::optional<http::HttpResponse> Gate(const http::HttpRequest& request) const;

  const std::string& cookie_name() const { return cookie_name_; }

 private:
  bool CarriesToken(const http::HttpRequest& request) const;

  std::string token_;
  std::string cookie_name_;
};

// "optrace_ui_" + `server_id`, an id of one server that is not a secret.
std::string UiCookieName(std::string_view server_id);

// Whether the Host header `host_untrusted` ("127.0.0.1:8080", "localhost",
// "[::1]:9", ...) names a loopback host, with a port of digits or none.
bool IsLoopbackHostHeader(std::string_view host_untrusted);

// The value of cookie `name` in the Cookie header `cookie_untrusted`
// ("a=1; name=v"); nullopt when it is not there.
std::optional<std::string_view> FindCookie(std::string_view cookie_untrusted,
                                           std::string_view name);

// Where the token exchange sends the browser: `path` with `query` less
// its `token`, percent-encoded; "/" when `path` is not a plain local path
// (not starting with one "/", or with characters outside
// [A-Za-z0-9/._-]), so that the redirect can never lead off the server.
std::string RedirectWithoutToken(std::string_view path,
                                 const std::map<std::string, std::string>& query);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_ACCESS_H_
