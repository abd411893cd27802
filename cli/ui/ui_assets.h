// The web view's files (cli/ui/assets/: the page, its scripts and style),
// compiled into the binary (cmake/EmbedFiles.cmake makes the table at build
// time), so that nothing is fetched from anywhere else at view time and
// an installed `optrace` needs no file beside it.
#ifndef OPTRACE_CLI_UI_UI_ASSETS_H_
#define OPTRACE_CLI_UI_UI_ASSETS_H_

#include <span>
#include <string_view>

namespace optrace::cli {

// One file: its name under cli/ui/assets/ ("app.js", "views/sessions.js")
// and its bytes, which live as long as the program.
struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};

// Every asset, in the order CMake lists them (generated).
std::span<const EmbeddedFile> UiAssets();

// The asset named `name`; nullptr when there is none.
const EmbeddedFile* FindUiAsset(std::string_view name);

// The Content-Type of an asset, by its extension (.html, .js, .css, .svg,
// .png); "application/octet-stream" for any other.
std::string_view UiAssetContentType(std::string_view name);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_ASSETS_H_
