// Who is on the other end of each Unix-socket connection: the kernel's peer
// credentials, taken when the daemon accepts the connection (gRPC 1.51 does
// not expose them), looked up by the handler through the "fd:N" peer name.
#ifndef OPTRACE_DAEMON_API_PEER_REGISTRY_H_
#define OPTRACE_DAEMON_API_PEER_REGISTRY_H_

#include <sys/types.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace optrace::daemon {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Thread-safe.
class PeerRegistry {
 public:
  // Records the credentials of accepted connection `fd` (replacing those of
  // an earlier connection that had the same fd number).
  void Add(int fd, PeerCredentials credentials);
  // The credentials for a gRPC peer name "fd:N"; nullopt for other peers
  // (TCP) and unknown fds.
  std::optional<PeerCredentials> Lookup(const std::string& peer) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<int, PeerCredentials> by_fd_;  // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_PEER_REGISTRY_H_
