// The rule for a folder that holds the daemon's socket: whoever can write
// to it can replace the socket with one of their own (and read what the
// CLI and clients send, or answer for the daemon), or stop the daemon from
// listening. /tmp/optrace-$UID, the fallback, is in a folder everyone can
// write: another user could make it first.
#ifndef OPTRACE_COMMON_SOCKET_FOLDER_H_
#define OPTRACE_COMMON_SOCKET_FOLDER_H_

#include <sys/types.h>

#include <string>

namespace optrace {

// Why `folder` may not hold the socket of a daemon of uid `uid`, or "" when
// it may: owned by `uid` or root, and writable by its owner only. The
// refusal names the folder, its owner (uid and name) and its mode. A
// folder that does not exist is "" (there is nothing to trust yet); any
// other stat error is a refusal naming it.
std::string SocketFolderProblem(const std::string& folder, uid_t uid);

}  // namespace optrace

#endif  // OPTRACE_COMMON_SOCKET_FOLDER_H_
