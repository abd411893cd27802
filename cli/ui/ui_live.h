// `optrace ui`'s live stream, what the live page (/live) reads:
//   GET /api/live[?session=ID|pid=PID|label=L][&level=LEVEL][&name=RE2]
//                [&target=cpu|gpu|other][&spans=0|1]
// answered as server-sent events (live_relay.h) with the filters of
// `optrace tail`: events (spans with spans=1) up to `level`, which the
// daemon raises matching producers to while the page is open. At most
// kItemsPerPeriod items a period of kPeriod reach the page; the rest are
// counted and the page is told how many (live_thinner.h). A bad parameter
// is a 400, an unknown session a 404 (both JSON, before any event, so
// that a browser does not retry); past kMaxLiveStreams open streams, 503:
// each holds one of the server's threads while it lasts. A stream ends
// when the page goes (its next write fails), when it reads nothing for the
// server's I/O timeout, when the daemon ends it, or when `optrace ui`
// stops.
#ifndef OPTRACE_CLI_UI_UI_LIVE_H_
#define OPTRACE_CLI_UI_UI_LIVE_H_

#include <chrono>
#include <cstddef>

#include "connection.h"
#include "ui/ui_router.h"

namespace optrace::cli {

inline constexpr size_t kItemsPerPeriod = 200;
inline constexpr std::chrono::milliseconds kPeriod{100};
inline constexpr int kMaxLiveStreams = 4;

// Adds GET /api/live to `router`. `connection` must outlive the router.
void AddUiLiveRoutes(UiRouter& router, Connection& connection);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_UI_LIVE_H_
