#include "ui/ui_router.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::cli {
namespace {

http::HttpRequest Request(std::string method, std::string path) {
  http::HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  return request;
}

UiRouter Router() {
  UiRouter router([](const http::HttpRequest&, int status, std::string message) {
    http::HttpResponse response;
    response.status = status;
    response.body = std::move(message);
    return response;
  });
  const auto named = [](std::string name) {
    return [name](const http::HttpRequest&, const RouteMatch& match) {
      http::HttpResponse response;
      response.body = name;
      for (const uint64_t id : match.ids) response.body += " " + std::to_string(id);
      return response;
    };
  };
  router.Add("GET", "/", named("sessions"));
  router.Add("GET", "/session/{id}", named("session"));
  router.Add("GET", "/api/sessions/{id}/stats", named("stats"));
  router.Add("GET", "/api/diff/{id}/{id}", named("diff"));
  return router;
}

TEST(UiRouterTest, Paths_ReachTheirRoutesWithIds) {
  const UiRouter router = Router();
  EXPECT_EQ(router.Route(Request("GET", "/")).body, "sessions");
  EXPECT_EQ(router.Route(Request("GET", "/session/12")).body, "session 12");
  EXPECT_EQ(router.Route(Request("GET", "/api/sessions/7/stats")).body, "stats 7");
  EXPECT_EQ(router.Route(Request("GET", "/api/diff/1/18446744073709551615")).body,
            "diff 1 18446744073709551615");
}

TEST(UiRouterTest, UnknownPath_404) {
  const UiRouter router = Router();
  for (const char* path : {"/nope", "/session", "/session/", "/session/12/", "/session/12/x",
                           "/api/sessions/7", "//", ""}) {
    EXPECT_EQ(router.Route(Request("GET", path)).status, 404) << path;
  }
}

TEST(UiRouterTest, Malicious_BadIds_404) {
  const UiRouter router = Router();
  for (const char* path :
       {"/session/0", "/session/-1", "/session/+1", "/session/1e3", "/session/18446744073709551616",
        "/session/99999999999999999999999", "/session/12a", "/session/%31", "/session/ 1"}) {
    EXPECT_EQ(router.Route(Request("GET", path)).status, 404) << path;
  }
}

TEST(UiRouterTest, WrongMethod_405WithAllow) {
  const UiRouter router = Router();
  const http::HttpResponse answer = router.Route(Request("POST", "/session/3"));
  EXPECT_EQ(answer.status, 405);
  ASSERT_EQ(answer.headers.size(), 1u);
  EXPECT_EQ(answer.headers[0].first, "Allow");
  EXPECT_EQ(answer.headers[0].second, "GET");
}

TEST(UiRouterTest, ParseRouteId_Bounds) {
  EXPECT_EQ(ParseRouteId("1"), 1u);
  EXPECT_EQ(ParseRouteId("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseRouteId("0"));
  EXPECT_FALSE(ParseRouteId(""));
  EXPECT_FALSE(ParseRouteId("018446744073709551615"));
}

}  // namespace
}  // namespace optrace::cli
