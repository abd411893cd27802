// Opening a page in the user's browser, where there is one: xdg-open,
// found on PATH, with a display ($DISPLAY or $WAYLAND_DISPLAY) to show it
// on. Never waits for the browser and never fails the caller.
#ifndef OPTRACE_CLI_UI_BROWSER_OPENER_H_
#define OPTRACE_CLI_UI_BROWSER_OPENER_H_

#include <string>

namespace optrace::cli {

// Starts `xdg-open target` in the background (its output discarded) and
// returns true; false, doing nothing, when there is no xdg-open or no
// display. `target` is passed as one argument, never through a shell's
// parsing.
bool OpenInBrowser(const std::string& target);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_BROWSER_OPENER_H_
