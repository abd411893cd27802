#include "ui/browser_opener.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

extern char** environ;

namespace optrace::cli {
namespace {

bool HasDisplay() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

bool XdgOpenOnPath() {
  const char* path = std::getenv("PATH");
  std::string_view folders = path != nullptr ? path : "";
  while (!folders.empty()) {
    const size_t colon = std::min(folders.find(':'), folders.size());
    const std::string candidate = std::string(folders.substr(0, colon)) + "/xdg-open";
    if (colon > 0 && ::access(candidate.c_str(), X_OK) == 0) return true;
    folders.remove_prefix(std::min(colon + 1, folders.size()));
  }
  return false;
}

}  // namespace

bool OpenInBrowser(const std::string& target) {
  if (!HasDisplay() || !XdgOpenOnPath()) return false;
  // sh starts xdg-open in the background and exits at once, so that we
  // reap sh now and xdg-open (and the browser it may stay with) is
  // init's to reap. The target is "$1", not part of the script.
  const char* argv[] = {"/bin/sh", "-c",           "xdg-open \"$1\" >/dev/null 2>&1 </dev/null &",
                        "sh",      target.c_str(), nullptr};
  pid_t pid = 0;
  if (::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) !=
      0) {
    return false;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace optrace::cli
