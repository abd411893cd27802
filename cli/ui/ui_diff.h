// `optrace ui`'s comparison of two sessions, what the diff page
// (/diff/A/B) reads:
//   GET /api/diff/{a}/{b}[?by=name|tag]
// in the shape of `optrace diff A B --json` (diff_command.h): the per-op
// rows, the fusions of B beside the parts of A they replaced, and both
// sessions. Errors as every JSON endpoint's (ui_endpoint.h): 400 for a
// bad `by`, 404 naming the unknown session.
#ifndef OPTRACE_CLI_UI_UI_DIFF_H_
#define OPTRACE_CLI_UI_UI_DIFF_H_

#include "connection.h"
#include "ui/ui_router.h"

namespace optrace::cli {

// Adds GET /api/diff/{a}/{b} to `router`. `connection` must outlive the
// router.
void AddUiDiffRoutes(UiRouter& router, Connection& connection);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_DIFF_H_
