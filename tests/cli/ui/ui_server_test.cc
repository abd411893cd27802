// The web view's handler without a socket: access rules first, then the
// routes, and the headers that keep other sites out on every answer.
#include "ui/ui_server.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

#include "ui/ui_assets.h"

namespace optrace::cli {
namespace {

const std::string kToken(64, 'c');

class UiHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CliError error;
    // Never connected: these tests reach no API route that calls the daemon.
    ConnectionOptions options;
    options.socket = "/nonexistent/optraced.sock";
    connection_ = Connection::Open(options, &error);
    ASSERT_NE(connection_, nullptr) << error.message;
    handler_ = std::make_unique<UiHandler>(UiAccess(kToken, "optrace_ui_t"), *connection_);
  }

  http::HttpResponse Get(std::string path, bool with_cookie = true) {
    http::HttpRequest request;
    request.method = "GET";
    request.path = std::move(path);
    request.host = "localhost:8090";
    if (with_cookie) request.cookie = "optrace_ui_t=" + kToken;
    return handler_->Handle(request);
  }

  static std::map<std::string, std::string> Headers(const http::HttpResponse& response) {
    return {response.headers.begin(), response.headers.end()};
  }

  std::unique_ptr<Connection> connection_;
  std::unique_ptr<UiHandler> handler_;
};

TEST_F(UiHandlerTest, EveryAnswer_CarriesTheSecurityHeadersAndNoCors) {
  for (const auto& response :
       {Get("/"), Get("/", false), Get("/nope"), Get("/assets/app.js"), Get("/api/nope")}) {
    const auto headers = Headers(response);
    EXPECT_EQ(headers.at("Content-Security-Policy"), kUiContentSecurityPolicy);
    EXPECT_EQ(headers.at("Cache-Control"), "no-store");
    EXPECT_EQ(headers.at("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(headers.at("X-Frame-Options"), "DENY");
    for (const auto& [name, value] : headers) {
      EXPECT_EQ(name.rfind("Access-Control-", 0), std::string::npos) << name;
    }
  }
}

TEST_F(UiHandlerTest, Pages_AreTheOneDocument) {
  const http::HttpResponse sessions = Get("/");
  EXPECT_EQ(sessions.status, 200);
  EXPECT_EQ(sessions.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(Get("/session/42").body, sessions.body);
  EXPECT_EQ(Get("/session/x").status, 404);
}

TEST_F(UiHandlerTest, Assets_ServedWithTheirTypes) {
  for (const EmbeddedFile& file : UiAssets()) {
    const http::HttpResponse response = Get("/assets/" + std::string(file.name));
    EXPECT_EQ(response.status, 200) << file.name;
    EXPECT_EQ(response.body, file.bytes) << file.name;
    EXPECT_EQ(response.content_type, UiAssetContentType(file.name)) << file.name;
  }
  EXPECT_EQ(UiAssetContentType("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Get("/assets/../index.html").status, 404);
  EXPECT_EQ(Get("/assets/none.js").status, 404);
}

// `relative` ("./x.js", "../x.js") as named from the asset `from`.
std::string ResolveImport(std::string_view from, std::string relative) {
  std::string folder(from.substr(0, from.rfind('/') + 1));  // "" or "views/"
  while (relative.starts_with("../")) {
    relative = relative.substr(3);
    folder = folder.empty() ? "" : folder.substr(0, folder.rfind('/', folder.size() - 2) + 1);
  }
  if (relative.starts_with("./")) relative = relative.substr(2);
  return folder + relative;
}

// Every file a page or script names (src, href, import) is one the server has.
TEST_F(UiHandlerTest, EveryReferencedAsset_Exists) {
  const std::regex reference(R"re((?:src|href)="/assets/([^"]+)"|from "(\.\.?/[^"]+)")re");
  size_t references = 0;
  for (const EmbeddedFile& file : UiAssets()) {
    const std::string text(file.bytes);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), reference);
         it != std::sregex_iterator(); ++it) {
      ++references;
      const std::string name =
          (*it)[1].matched ? (*it)[1].str() : ResolveImport(file.name, (*it)[2].str());
      EXPECT_NE(FindUiAsset(name), nullptr) << file.name << " names " << name;
    }
  }
  EXPECT_GE(references, 5u);
}

TEST_F(UiHandlerTest, UnknownApi_JsonError) {
  const http::HttpResponse response = Get("/api/nope");
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_NE(response.body.find("\"message\""), std::string::npos) << response.body;
}

TEST_F(UiHandlerTest, NoCookie_401ForPagesAssetsAndApi) {
  for (const char* path : {"/", "/session/1", "/assets/app.js", "/api/sessions"}) {
    const http::HttpResponse response = Get(path, false);
    EXPECT_EQ(response.status, 401) << path;
    EXPECT_EQ(response.body.find("<html"), std::string::npos) << path;
  }
}

}  // namespace
}  // namespace optrace::cli
