#include "ui/ui_runtime_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/socket_folder.h"
#include "exit_codes.h"

namespace optrace::cli {
namespace {

// Writes `content` to a new file `path`, 0600 (replacing one left by a
// run that was killed). Returns "" or the error.
std::string WritePrivateFile(const std::string& path, const std::string& content) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string problem = "cannot write " + path + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(path.c_str());
      return problem;
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  return "";
}

// The page that sends the browser on to `url` at once. The URL is ours
// (digits and hex only) and needs no escaping.
std::string OpenPage(const std::string& url) {
  return "<!doctype html>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"refresh\" "
         "content=\"0;url=" +
         url + "\">\n<title>optrace</title>\n<a href=\"" + url + "\">open optrace</a>\n";
}

}  // namespace

std::unique_ptr<UiRuntimeFiles> UiRuntimeFiles::Write(const std::string& folder, int port,
                                                      const std::string& token,
                                                      const std::string& url, CliError* error) {
  if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = {kExitFailure,
              "cannot make the runtime folder " + folder + ": " + std::strerror(errno)};
    return nullptr;
  }
  if (std::string problem = SocketFolderProblem(folder, ::getuid()); !problem.empty()) {
    *error = {kExitFailure, problem};
    return nullptr;
  }
  const std::string stem = folder + "/ui-" + std::to_string(port);
  std::unique_ptr<UiRuntimeFiles> files(new UiRuntimeFiles(stem + ".token", stem + "-open.html"));
  for (const auto& [path, content] : {std::pair{files->token_path_, token + "\n"},
                                      std::pair{files->open_page_path_, OpenPage(url)}}) {
    if (std::string problem = WritePrivateFile(path, content); !problem.empty()) {
      *error = {kExitFailure, problem};
      return nullptr;
    }
  }
  return files;
}

UiRuntimeFiles::~UiRuntimeFiles() {
  ::unlink(token_path_.c_str());
  ::unlink(open_page_path_.c_str());
}

}  // namespace optrace::cli
