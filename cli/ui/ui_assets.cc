#include "ui/ui_assets.h"

#include <array>
#include <utility>

namespace optrace::cli {

const EmbeddedFile* FindUiAsset(std::string_view name) {
  for (const EmbeddedFile& file : UiAssets()) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

std::string_view UiAssetContentType(std::string_view name) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kTypes = {{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
  }};
  for (const auto& [extension, type] : kTypes) {
    if (name.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

}  // namespace optrace::cli
