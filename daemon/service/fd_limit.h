// The daemon's open-file limit. Each attached producer holds a pidfd and a
// descriptor of its segment (the liveness lock's probe), each API
// connection an fd: the soft limit that
// a login shell or systemd gives (1024) is reached long before the hard
// one, which is what the administrator allows.
#ifndef OPTRACE_DAEMON_SERVICE_FD_LIMIT_H_
#define OPTRACE_DAEMON_SERVICE_FD_LIMIT_H_

#include <string>

namespace optrace::daemon {

// Raises RLIMIT_NOFILE's soft limit to its hard limit. Returns what it did,
// for the log: "open files: 1024 -> 524288", "open files: 524288" when the
// soft limit already was the hard one, or why it could not.
std::string RaiseFdLimit();

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_SERVICE_FD_LIMIT_H_
