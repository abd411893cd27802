#include "other_uid_stage.h"

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

namespace optrace::testing {
namespace {

namespace fs = std::filesystem;

// Copies `from` into `folder` under its own name, readable and (for
// programs) executable by everyone; returns the copy's path.
std::string CopyReadableByAll(const std::string& from, const std::string& folder) {
  const fs::path to = fs::path(folder) / fs::path(from).filename();
  std::error_code ec;
  if (!fs::exists(to)) {
    fs::copy_file(from, to, ec);
    if (ec) throw std::runtime_error("staging " + from + ": " + ec.message());
  }
  if (::chmod(to.c_str(), 0755) != 0) throw std::runtime_error("chmod " + to.string());
  return to.string();
}

}  // namespace

OtherUidStage::OtherUidStage() {
  if (::chmod(folder_.path().c_str(), 0755) != 0) {
    throw std::runtime_error("chmod " + folder_.path());
  }
  CopyReadableByAll(OPTRACE_CLIENT_LIBRARY, folder_.path());
}

std::vector<std::string> OtherUidStage::Command(const std::string& program,
                                                const std::vector<std::string>& args) {
  const std::string id = std::to_string(kOtherUid);
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=" + id, "--regid=" + id,
                                   "--clear-groups", "/usr/bin/env",
                                   "LD_LIBRARY_PATH=" + folder_.path(),
                                   CopyReadableByAll(program, folder_.path())};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace optrace::testing
