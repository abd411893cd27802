// `optrace ui [--port N] [--no-open]`: a web view of the daemon's sessions
// on 127.0.0.1, for the user who runs it (docs/ui.md). It talks to the
// daemon over the same connection as every command, prints the URL with
// its token, opens a browser where there is one, and serves until Ctrl-C.
#ifndef OPTRACE_CLI_UI_COMMAND_H_
#define OPTRACE_CLI_UI_COMMAND_H_

#include <cstdint>
#include <string>

#include "command_spec.h"
#include "connection.h"

namespace optrace::cli {

struct UiOptions {
  uint32_t port = 0;  // 0 = a free one
  bool no_open = false;
};

// The URL a browser opens first: http://127.0.0.1:PORT/?token=TOKEN.
std::string UiUrl(int port, const std::string& token);

// Serves until SIGINT or SIGTERM; returns the exit code (1 when the port
// cannot be bound or the token not stored).
int RunUi(Connection& connection, const UiOptions& options);

// `optrace ui`: its options, bound to UiOptions it owns, and RunUi.
CommandSpec DescribeUiCommand();

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_UI_COMMAND_H_
