// The web view's pages and files as routes. Every page is the one
// document assets/index.html, whose script (assets/app.js) picks the view
// from the URL's path, so that a URL names its view and can be shared, and
// the back button goes through real page loads:
//   /                  the sessions
//   /session/{id}      one session: statistics, steps, timeline
//   /live              the live tail (ui_live.h)
//   /diff/{id}/{id}    two sessions compared, as `optrace diff`
// A new view is a route here and one in app.js. Assets are served under /assets/NAME.
#ifndef OPTRACE_CLI_UI_UI_PAGES_H_
#define OPTRACE_CLI_UI_UI_PAGES_H_

#include "ui/ui_router.h"

namespace optrace::cli {

// Adds the pages and every asset (ui_assets.h) to `router`.
void AddUiPageRoutes(UiRouter& router);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_PAGES_H_
