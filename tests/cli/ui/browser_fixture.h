// What the web view's browser tests share: they skip, saying why, where
// Chromium is not installed; `optrace ui` gets a private runtime folder
// for its token; screenshots go to the test's folder, or are kept in
// OPTRACE_UI_SCREENSHOTS=DIR (docs/ui.md's come from there).
#ifndef OPTRACE_TESTS_CLI_UI_BROWSER_FIXTURE_H_
#define OPTRACE_TESTS_CLI_UI_BROWSER_FIXTURE_H_

#include <string>

#include "cli_harness.h"

namespace optrace::cli::testing {

// Debian's package installs it here (deploy/install-deps.sh).
inline constexpr const char* kChromium = "/usr/bin/chromium";

class BrowserFixture : public CliTest {
 protected:
  void SetUp() override;

  std::string runtime_;  // $XDG_RUNTIME_DIR for optrace ui, mode 0700
  std::string shots_;    // where screenshots are written
};

// Expects `png` to be a PNG of a drawn page: a blank page compresses to a
// few hundred bytes. `name` names it in failures.
void ExpectDrawnPng(const std::string& png, const std::string& name);

}  // namespace optrace::cli::testing

#endif  // OPTRACE_TESTS_CLI_UI_BROWSER_FIXTURE_H_
