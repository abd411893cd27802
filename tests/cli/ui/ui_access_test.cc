#include "ui/ui_access.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::cli {
namespace {

const std::string kToken(64, 'a');

http::HttpRequest Request(std::string path, std::string host = "127.0.0.1:8090") {
  http::HttpRequest request;
  request.method = "GET";
  request.path = std::move(path);
  request.host = std::move(host);
  return request;
}

UiAccess Access() { return UiAccess(kToken, "optrace_ui_x"); }

TEST(UiAccessTest, LoopbackHostHeaders_Accepted) {
  for (const char* host : {"127.0.0.1", "127.0.0.1:8090", "localhost", "localhost:1", "[::1]",
                           "[::1]:8090", "127.1.2.3:80"}) {
    EXPECT_TRUE(IsLoopbackHostHeader(host)) << host;
  }
}

TEST(UiAccessTest, Malicious_RebindingAndOddHosts_Refused) {
  for (const char* host :
       {"", "evil.example", "evil.example:8090", "127.0.0.1.evil.example", "localhost.evil:80",
        "10.0.0.1:8090", "[::2]:80", "[::1", "[::1]x", "::1", "127.0.0.1:", "127.0.0.1:80a",
        "0.0.0.0:8090", ":8090", "[]:80"}) {
    EXPECT_FALSE(IsLoopbackHostHeader(host)) << host;
  }
}

TEST(UiAccessTest, FindCookie_AmongOthers) {
  EXPECT_EQ(FindCookie("a=1; optrace_ui_x=v; b=2", "optrace_ui_x"), "v");
  EXPECT_EQ(FindCookie("optrace_ui_x=v", "optrace_ui_x"), "v");
  EXPECT_EQ(FindCookie("optrace_ui_x=", "optrace_ui_x"), "");
  EXPECT_FALSE(FindCookie("optrace_ui_xy=v; xoptrace_ui_x=v", "optrace_ui_x").has_value());
  EXPECT_FALSE(FindCookie("", "optrace_ui_x").has_value());
  EXPECT_FALSE(FindCookie(";;;", "optrace_ui_x").has_value());
}

TEST(UiAccessTest, NoCredentials_401AndNoData) {
  const auto answer = Access().Gate(Request("/api/sessions"));
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 401);
  EXPECT_EQ(answer->body.find("sessions\""), std::string::npos);
}

TEST(UiAccessTest, RightCookie_GoesOn) {
  http::HttpRequest request = Request("/api/sessions");
  request.cookie = "other=1; optrace_ui_x=" + kToken;
  EXPECT_FALSE(Access().Gate(request).has_value());
}

TEST(UiAccessTest, BearerToken_GoesOn) {
  http::HttpRequest request = Request("/api/sessions");
  request.authorization = "Bearer " + kToken;
  EXPECT_FALSE(Access().Gate(request).has_value());
}

TEST(UiAccessTest, Malicious_WrongOrPartialToken_401) {
  for (const std::string& guess :
       {std::string(63, 'a'), std::string(65, 'a'), std::string(63, 'a') + "b", std::string()}) {
    http::HttpRequest request = Request("/");
    request.cookie = "optrace_ui_x=" + guess;
    request.authorization = "Bearer " + guess;
    const auto answer = Access().Gate(request);
    ASSERT_TRUE(answer.has_value()) << guess;
    EXPECT_EQ(answer->status, 401) << guess;
  }
  http::HttpRequest in_url = Request("/");
  in_url.query["token"] = std::string(63, 'a') + "b";
  EXPECT_EQ(Access().Gate(in_url)->status, 401);
}

TEST(UiAccessTest, Malicious_OtherCookieNameWithTheToken_401) {
  http::HttpRequest request = Request("/");
  request.cookie = "optrace_ui_y=" + kToken;
  EXPECT_EQ(Access().Gate(request)->status, 401);
}

TEST(UiAccessTest, TokenInUrl_RedirectWithStrictHttpOnlyCookie) {
  http::HttpRequest request = Request("/session/12");
  request.query = {{"token", kToken}, {"by", "tag"}};
  const auto answer = Access().Gate(request);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 303);
  std::map<std::string, std::string> headers(answer->headers.begin(), answer->headers.end());
  EXPECT_EQ(headers["Location"], "/session/12?by=tag");
  EXPECT_EQ(headers["Set-Cookie"],
            "optrace_ui_x=" + kToken + "; Path=/; HttpOnly; SameSite=Strict");
}

TEST(UiAccessTest, Malicious_BadHostWithRightToken_403BeforeAnything) {
  http::HttpRequest request = Request("/", "evil.example:8090");
  request.query["token"] = kToken;
  request.cookie = "optrace_ui_x=" + kToken;
  const auto answer = Access().Gate(request);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->status, 403);
  EXPECT_TRUE(answer->headers.empty()) << "no cookie for a foreign host";
}

TEST(UiAccessTest, Malicious_RedirectNeverLeavesTheServer) {
  EXPECT_EQ(RedirectWithoutToken("//evil.example/x", {}), "/");
  EXPECT_EQ(RedirectWithoutToken("/a\r\nSet-Cookie: x", {}), "/");
  EXPECT_EQ(RedirectWithoutToken("https://evil.example", {}), "/");
  EXPECT_EQ(RedirectWithoutToken("", {}), "/");
  EXPECT_EQ(RedirectWithoutToken("/", {{"q", "a b&c=\r\n"}, {"token", "t"}}),
            "/?q=a%20b%26c%3D%0D%0A");
  EXPECT_EQ(RedirectWithoutToken("/session/3", {{"token", "t"}}), "/session/3");
}

}  // namespace
}  // namespace optrace::cli
