// `optrace ui`'s JSON endpoints, each answered from the daemon over the
// user's own gRPC connection (so the daemon's access rules apply as to any
// CLI command), in the shapes of `--json` (json_convert.h):
//   GET /api/sessions[?all=0|1][&limit=N]     ListSessions (all: default 1)
//   GET /api/sessions/{id}                     GetSession
//   GET /api/sessions/{id}/stats[?by=name|tag|target][&sort=total|self]
//   GET /api/sessions/{id}/steps               GetSteps (the daemon's rules)
//   GET /api/sessions/{id}/timeline[?from=NS&to=NS][&width=PIXELS]
//                                              GetTimeline (ui/timeline_json.h;
//                                              from/to 0: the whole session;
//                                              width 1000 when absent)
// An error is {"status": HTTP status, "message": "..."}: 400 for a query
// parameter out of its words (named), 404 for an unknown session, 403 when
// the daemon refuses, 503 when no daemon answers, 504 past the deadline,
// 502 for anything else the daemon returns.
#ifndef OPTRACE_CLI_UI_UI_API_H_
#define OPTRACE_CLI_UI_UI_API_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "connection.h"
#include "http/http_server.h"
#include "ui/ui_endpoint.h"  // JsonErrorResponse, HttpStatusOfRpc
#include "ui/ui_router.h"

namespace optrace::cli {

// Adds the endpoints above to `router`. `connection` must outlive the
// router; its stub is used from the server's threads at once (gRPC stubs
// are thread-safe).
void AddUiApiRoutes(UiRouter& router, Connection& connection);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_API_H_
