// The live and diff routes without a daemon: their pages are the one
// document, their parameters are checked before any call (so a bad one is
// a 400 naming it even with no daemon), and without the token nothing
// streams.
#include "ui/ui_live.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ui/ui_server.h"

namespace optrace::cli {
namespace {

const std::string kToken(64, 'd');

class UiLiveRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CliError error;
    ConnectionOptions options;
    options.socket = "/nonexistent/optraced.sock";  // never reached by these requests
    connection_ = Connection::Open(options, &error);
    ASSERT_NE(connection_, nullptr) << error.message;
    handler_ = std::make_unique<UiHandler>(UiAccess(kToken, "optrace_ui_l"), *connection_);
  }

  http::HttpResponse Get(std::string path, std::map<std::string, std::string> query = {},
                         bool with_cookie = true) {
    http::HttpRequest request;
    request.method = "GET";
    request.path = std::move(path);
    request.query = std::move(query);
    request.host = "127.0.0.1:8090";
    if (with_cookie) request.cookie = "optrace_ui_l=" + kToken;
    return handler_->Handle(request);
  }

  std::unique_ptr<Connection> connection_;
  std::unique_ptr<UiHandler> handler_;
};

TEST_F(UiLiveRouteTest, LiveAndDiffPages_AreTheOneDocument) {
  const std::string page = Get("/").body;
  EXPECT_EQ(Get("/live").body, page);
  EXPECT_EQ(Get("/live", {{"session", "3"}, {"level", "debug"}}).body, page);
  EXPECT_EQ(Get("/diff/12/13").body, page);
  EXPECT_EQ(Get("/diff/12").status, 404);
  EXPECT_EQ(Get("/diff/12/x").status, 404);
  EXPECT_EQ(Get("/live/1").status, 404);
}

TEST_F(UiLiveRouteTest, Malicious_BadLiveParameters_400NamingThemBeforeAnyCall) {
  const std::pair<const char*, const char*> bad[] = {
      {"level", "loud"}, {"target", "tpu"}, {"spans", "maybe"},
      {"pid", "-1"},     {"session", "0"},  {"session", "99999999999999999999999"},
  };
  for (const auto& [name, value] : bad) {
    const http::HttpResponse response = Get("/api/live", {{name, value}});
    EXPECT_EQ(response.status, 400) << name << "=" << value;
    EXPECT_EQ(response.content_type, "application/json");
    EXPECT_NE(response.body.find(std::string(name) + "=" + value), std::string::npos)
        << response.body;
    EXPECT_FALSE(response.stream) << "no stream for a refused request";
  }
}

TEST_F(UiLiveRouteTest, Malicious_BadDiffGrouping_400) {
  const http::HttpResponse response = Get("/api/diff/1/2", {{"by", "target"}});
  EXPECT_EQ(response.status, 400);
  EXPECT_NE(response.body.find("by=target"), std::string::npos) << response.body;
}

TEST_F(UiLiveRouteTest, NoCookie_401AndNoStream) {
  for (const char* path : {"/api/live", "/api/diff/1/2", "/live", "/diff/1/2"}) {
    const http::HttpResponse response = Get(path, {}, false);
    EXPECT_EQ(response.status, 401) << path;
    EXPECT_FALSE(response.stream) << path;
  }
}

}  // namespace
}  // namespace optrace::cli
