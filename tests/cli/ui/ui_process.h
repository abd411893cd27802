// `optrace ui --no-open --port 0` as a real child process against a test's
// daemon, with the URL it printed taken apart: what the web view's
// integration and browser tests start.
#ifndef OPTRACE_TESTS_CLI_UI_UI_PROCESS_H_
#define OPTRACE_TESTS_CLI_UI_UI_PROCESS_H_

#include <memory>
#include <string>

#include "subprocess.h"

namespace optrace::cli::testing {

class UiProcess {
 public:
  // Starts the CLI on `socket` with $XDG_RUNTIME_DIR = `runtime_folder`
  // and waits (up to 20 s) for its URL line; ok() says whether it came.
  UiProcess(const std::string& socket, const std::string& runtime_folder);

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  const std::string& token() const { return token_; }
  // The URL as printed: http://127.0.0.1:PORT/?token=TOKEN.
  const std::string& url() const { return url_; }
  // "http://127.0.0.1:PORT" + `target_with_token` + "?token=..." (or
  // "&token=..." when the target has a query already).
  std::string UrlOf(const std::string& target) const;
  // "127.0.0.1:PORT": a Host header the server accepts.
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }

  optrace::testing::Subprocess& process() { return *process_; }

 private:
  std::unique_ptr<optrace::testing::Subprocess> process_;
  int port_ = 0;
  std::string token_;
  std::string url_;
};

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_UI_UI_PROCESS_H_
