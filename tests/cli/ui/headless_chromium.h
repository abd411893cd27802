// A real headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands in on its fd 3, answers and events
// out on its fd 4, each a JSON message ended by a NUL byte). For pages
// that never finish loading, such as the live page's event stream, where
// --dump-dom either dumps at once or (with a virtual time budget) never,
// and for tests that act on a page (a wheel turn, a key press: Call) and
// read what it shows then: the test opens the page, then asks it
// questions while it runs.
#ifndef OPTRACE_TESTS_CLI_UI_HEADLESS_CHROMIUM_H_
#define OPTRACE_TESTS_CLI_UI_HEADLESS_CHROMIUM_H_

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace optrace::cli::testing {

class HeadlessChromium {
 public:
  // Starts `chromium` with its own profile in `profile_folder`; ok() says
  // whether it answered its first command.
  HeadlessChromium(const std::string& chromium, const std::string& profile_folder);
  // Closes the browser (Browser.close), killing it if it does not end.
  ~HeadlessChromium();
  HeadlessChromium(const HeadlessChromium&) = delete;
  HeadlessChromium& operator=(const HeadlessChromium&) = delete;

  bool ok() const { return ok_; }

  // Opens `url` in a new tab and attaches to it; false on failure.
  bool Open(const std::string& url);

  // The value of the JavaScript `expression` evaluated in the open tab
  // (promises awaited); nullopt when it threw or no answer came within
  // `timeout`.
  std::optional<nlohmann::json> Evaluate(
      const std::string& expression, std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // A PNG of the open tab as a 1200x800 window shows it; nullopt on failure.
  std::optional<std::string> Screenshot();

  // Evaluates `expression` until its value is true, or `timeout` passes;
  // whether it became true.
  bool WaitUntil(const std::string& expression, std::chrono::milliseconds timeout);

  // Sends `method` with `params` (to the open tab's session when `to_tab`
  // and attached, else to the browser; an input event, say) and waits for
  // its answer's "result"; nullopt on an error or timeout.
  std::optional<nlohmann::json> Call(const std::string& method, const nlohmann::json& params,
                                     bool to_tab = true,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  pid_t pid_ = -1;
  int to_browser_ = -1;    // its fd 3
  int from_browser_ = -1;  // its fd 4
  std::string pending_;    // bytes read past the last message
  int next_id_ = 0;
  std::string tab_session_;
  bool ok_ = false;
};

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_UI_HEADLESS_CHROMIUM_H_
