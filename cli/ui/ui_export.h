// `optrace ui`'s download of a session's export, what the timeline's
// "Perfetto trace" button asks for:
//   GET /api/sessions/{id}/export[?format=perfetto|chrome|csv|sqlite]
//                                [&from=NS&to=NS]
// streamed from the daemon's Export (format perfetto when absent; from/to
// the range in Unix ns, both absent or 0 for the whole session) as the
// body of an attachment ("session-7.pftrace"), chunk by chunk as the
// daemon sends them, so that the server never holds the whole file. A bad
// parameter is a 400 naming it, a range the daemon refuses a 400 with its
// message, an unknown session a 404 (JSON, before any byte of the file).
// A download holds one of the server's threads while it streams; it ends
// when the export does, when the page goes, or when `optrace ui` stops.
#ifndef OPTRACE_CLI_UI_UI_EXPORT_H_
#define OPTRACE_CLI_UI_UI_EXPORT_H_

#include "connection.h"
#include "ui/ui_router.h"

namespace optrace::cli {

// Adds GET /api/sessions/{id}/export to `router`. `connection` must
// outlive the router.
void AddUiExportRoutes(UiRouter& router, Connection& connection);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_EXPORT_H_
