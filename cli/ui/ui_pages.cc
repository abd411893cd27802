#include "ui/ui_pages.h"

#include <string>

#include "ui/ui_assets.h"

namespace optrace::cli {
namespace {

// The pages' paths; app.js has the same list of views.
constexpr const char* kPagePatterns[] = {"/", "/session/{id}", "/live", "/diff/{id}/{id}"};

http::HttpResponse AssetResponse(const EmbeddedFile& file) {
  http::HttpResponse response;
  response.content_type = std::string(UiAssetContentType(file.name));
  response.body = std::string(file.bytes);
  return response;
}

}  // namespace

void AddUiPageRoutes(UiRouter& router) {
  const EmbeddedFile* page = FindUiAsset("index.html");
  for (const char* pattern : kPagePatterns) {
    router.Add("GET", pattern, [page](const http::HttpRequest&, const RouteMatch&) {
      return AssetResponse(*page);
    });
  }
  for (const EmbeddedFile& file : UiAssets()) {
    router.Add(
        "GET", "/assets/" + std::string(file.name),
        [&file](const http::HttpRequest&, const RouteMatch&) { return AssetResponse(file); });
  }
}

}  // namespace optrace::cli
