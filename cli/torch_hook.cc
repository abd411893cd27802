#include "torch_hook.h"

#include <cstdlib>
#include <filesystem>

#include "nvtx_library.h"

namespace optrace::cli {

std::vector<std::string> TorchHookCandidates() {
  if (const char* env = std::getenv("OPTRACE_TORCH_HOOK"); env != nullptr && *env != '\0') {
    return {env};
  }
  std::vector<std::string> out;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / ".." / OPTRACE_INSTALL_PYTHONDIR / "optrace" / "_torch_hook")
                      .lexically_normal()
                      .string());
  }
  out.emplace_back(OPTRACE_BUILD_TORCH_HOOK);
  return out;
}

std::string FindTorchHook() {
  std::vector<std::string> scripts;
  for (const std::string& folder : TorchHookCandidates()) {
    scripts.push_back((std::filesystem::path(folder) / "sitecustomize.py").string());
  }
  const std::string script = FirstReadable(scripts);
  return script.empty() ? "" : std::filesystem::path(script).parent_path().string();
}

std::string PythonPathWith(const std::string& path, const char* current) {
  if (current == nullptr || *current == '\0') return path;
  return path + ":" + current;
}

}  // namespace optrace::cli
