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

// Thread-safe. An entry is the connection's, not its fd number's: it
// remembers which socket the fd was (device and inode), answers only while
// the fd still is that socket, and is forgotten once it is not (gRPC closes
// the fd when the connection ends, and the number is then reused).
class PeerRegistry {
 public:
  // Records the credentials of accepted connection `fd` (replacing those of
  // an earlier connection that had the same fd number), and forgets every
  // entry whose connection has ended.
  void Add(int fd, PeerCredentials credentials);
  // The credentials for a gRPC peer name "fd:N" while fd N is still the
  // connection they were recorded for; nullopt for other peers (TCP),
  // unknown fds and fds that are now another file.
  std::optional<PeerCredentials> Lookup(const std::string& peer) const;
  // How many connections it holds credentials of.
  size_t size() const;

 private:
  struct Entry {
    PeerCredentials credentials;
    dev_t device = 0;
    ino_t inode = 0;
  };
  // Whether `fd` still is the socket `entry` was recorded for.
  static bool StillTheSocketOf(int fd, const Entry& entry);

  mutable std::mutex mu_;
  std::unordered_map<int, Entry> by_fd_;  // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_PEER_REGISTRY_H_
