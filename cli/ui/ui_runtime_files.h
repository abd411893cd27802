// The files one `optrace ui` run leaves in the user's runtime folder
// (common/default_paths.h: $XDG_RUNTIME_DIR/optrace, else
// /tmp/optrace-$UID), each 0600 in a folder only the user may write, and
// removed when the run ends:
//   ui-PORT.token      the token, so that the user's own tools find it
//   ui-PORT-open.html  a page that forwards to the URL: what the browser
//                      is given to open, so that the token never shows in
//                      a command line (ps) of xdg-open or the browser
#ifndef OPTRACE_CLI_UI_UI_RUNTIME_FILES_H_
#define OPTRACE_CLI_UI_UI_RUNTIME_FILES_H_

#include <memory>
#include <string>

#include "cli_error.h"

namespace optrace::cli {

class UiRuntimeFiles {
 public:
  // Writes both files for the server on `port` with `token` and `url` in
  // `folder` (made 0700 when missing). Fails (kExitFailure, naming the
  // path) when the folder cannot be made, is not safe
  // (common/socket_folder.h's rule) or a file cannot be written.
  static std::unique_ptr<UiRuntimeFiles> Write(const std::string& folder, int port,
                                               const std::string& token, const std::string& url,
                                               CliError* error);

  // Removes both files.
  ~UiRuntimeFiles();
  UiRuntimeFiles(const UiRuntimeFiles&) = delete;
  UiRuntimeFiles& operator=(const UiRuntimeFiles&) = delete;

  const std::string& token_path() const { return token_path_; }
  const std::string& open_page_path() const { return open_page_path_; }

 private:
  UiRuntimeFiles(std::string token_path, std::string open_page_path)
      : token_path_(std::move(token_path)), open_page_path_(std::move(open_page_path)) {}

  std::string token_path_;
  std::string open_page_path_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_RUNTIME_FILES_H_
