// A real headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on its fd 3, answers on its fd 4,
// each a JSON message ended by a NUL byte), for browser tests that act on
// a page (a wheel turn, a key press) and read what it shows then, which a
// one-shot --dump-dom run cannot.
#ifndef OPTRACE_TESTS_CLI_UI_DEVTOOLS_BROWSER_H_
#define OPTRACE_TESTS_CLI_UI_DEVTOOLS_BROWSER_H_

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace optrace::cli::testing {

class DevtoolsBrowser {
 public:
  // Starts `chromium` headless with a profile in `profile_folder` and a
  // window of 1200x800, and attaches to its page; ok() says whether that
  // worked (error() why not).
  DevtoolsBrowser(const std::string& chromium, const std::string& profile_folder);
  // Kills the browser it started and reaps it.
  ~DevtoolsBrowser();
  DevtoolsBrowser(const DevtoolsBrowser&) = delete;
  DevtoolsBrowser& operator=(const DevtoolsBrowser&) = delete;

  bool ok() const { return !session_.empty(); }
  const std::string& error() const { return error_; }

  // Sends command `method` with `params` to the page (or to the browser
  // when `to_browser`) and returns its "result", skipping events; nullopt
  // (error() says why) for an error answer, a dead browser or no answer
  // within 30 s.
  std::optional<nlohmann::json> Call(const std::string& method, nlohmann::json params = {},
                                     bool to_browser = false);

  // Loads `url` in the page.
  bool Navigate(const std::string& url);

  // The value of JavaScript `expression` in the page (awaited when it is a
  // promise); nullopt when it threw or the call failed.
  std::optional<nlohmann::json> Evaluate(const std::string& expression);

  // Evaluates `expression` every 50 ms until it is true; false if it is
  // not within `timeout`.
  bool WaitFor(const std::string& expression, std::chrono::milliseconds timeout);

 private:
  // The next message, or nullopt past `deadline` or at EOF.
  std::optional<nlohmann::json> Read(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  int to_browser_ = -1;
  int from_browser_ = -1;
  std::string pending_;  // bytes read past the last message
  int next_id_ = 0;
  std::string session_;
  std::string error_;
};

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_UI_DEVTOOLS_BROWSER_H_
