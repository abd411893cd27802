#include "common/default_paths.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace optrace {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string HomeFolder() {
  std::string home = Env("HOME");
  if (!home.empty()) return home;
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    return pw->pw_dir;
  }
  return "/tmp";
}

}  // namespace

std::string DefaultSocketPath() {
  if (std::string s = Env("OPTRACE_SOCKET"); !s.empty()) return s;
  if (::getuid() == 0) return "/run/optrace/optraced.sock";
  return DefaultRuntimeFolder() + "/optraced.sock";
}

std::string DefaultRuntimeFolder() {
  if (std::string rt = Env("XDG_RUNTIME_DIR"); !rt.empty()) return rt + "/optrace";
  return FallbackSocketFolder();
}

std::string FallbackSocketFolder() { return "/tmp/optrace-" + std::to_string(::getuid()); }

std::string DefaultStateFolder() {
  if (::getuid() == 0) return "/var/lib/optrace";
  std::string state = Env("XDG_STATE_HOME");
  if (state.empty()) state = HomeFolder() + "/.local/state";
  return state + "/optrace";
}

}  // namespace optrace
