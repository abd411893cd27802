#include "nvtx_library.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace optrace::cli {

std::vector<std::string> NvtxLibraryCandidates() {
  if (const char* env = std::getenv("OPTRACE_NVTX_LIBRARY"); env != nullptr && *env != '\0') {
    return {env};
  }
  std::vector<std::string> out;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(
        (exe.parent_path() / ".." / OPTRACE_INSTALL_LIBDIR / "optrace" / "liboptrace_nvtx.so")
            .lexically_normal()
            .string());
  }
#ifdef OPTRACE_BUILD_NVTX_LIBRARY
  out.emplace_back(OPTRACE_BUILD_NVTX_LIBRARY);
#endif
  return out;
}

std::string FindNvtxLibrary() { return FirstReadable(NvtxLibraryCandidates()); }

std::string FirstReadable(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (::access(path.c_str(), R_OK) == 0) return std::filesystem::absolute(path).string();
  }
  return "";
}

}  // namespace optrace::cli
