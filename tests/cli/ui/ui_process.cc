#include "ui/ui_process.h"

#include <chrono>
#include <cstdlib>

namespace optrace::cli::testing {

UiProcess::UiProcess(const std::string& socket, const std::string& runtime_folder)
    : process_(std::make_unique<optrace::testing::Subprocess>(
          std::vector<std::string>{OPTRACE_CLI, "--socket", socket, "ui", "--no-open", "--port",
                                   "0"},
          std::map<std::string, std::string>{{"XDG_RUNTIME_DIR", runtime_folder}})) {
  constexpr const char* kPrefix = "http://127.0.0.1:";
  const std::optional<std::string> rest =
      process_->WaitForLine(kPrefix, std::chrono::seconds(20));  // "PORT/?token=TOKEN"
  if (!rest) return;
  const size_t slash = rest->find('/');
  const size_t equals = rest->find("?token=");
  if (slash == std::string::npos || equals == std::string::npos) return;
  token_ = rest->substr(equals + 7);
  url_ = kPrefix + *rest;
  port_ = std::atoi(rest->substr(0, slash).c_str());
}

std::string UiProcess::UrlOf(const std::string& target) const {
  const char separator = target.find('?') == std::string::npos ? '?' : '&';
  return "http://" + host() + target + separator + "token=" + token_;
}

}  // namespace optrace::cli::testing
