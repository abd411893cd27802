// Where optrace's files live by default, as the design specifies; shared by
// the daemon and the CLI so that both agree without configuration.
#ifndef OPTRACE_COMMON_DEFAULT_PATHS_H_
#define OPTRACE_COMMON_DEFAULT_PATHS_H_

#include <string>

namespace optrace {

// OPTRACE_SOCKET if set; else /run/optrace/optraced.sock for root, else
// $XDG_RUNTIME_DIR/optrace/optraced.sock, else /tmp/optrace-$UID/optraced.sock.
std::string DefaultSocketPath();

// The user's runtime folder for optrace's per-user files (sockets,
// `optrace ui`'s token): $XDG_RUNTIME_DIR/optrace, else the fallback
// socket folder (root's too: its system daemon's /run/optrace belongs to
// the service).
std::string DefaultRuntimeFolder();

// The fallback socket folder, /tmp/optrace-$UID: in a folder everyone can
// write, so whoever uses it checks it first (common/socket_folder.h).
std::string FallbackSocketFolder();

// The state folder: /var/lib/optrace for root, else
// $XDG_STATE_HOME/optrace (default ~/.local/state/optrace).
std::string DefaultStateFolder();

}  // namespace optrace

#endif  // OPTRACE_COMMON_DEFAULT_PATHS_H_
