// The daemon's Unix socket: created with the mode and group the design
// asks for, accepted by us (to read each peer's credentials) and handed to
// the gRPC server connection by connection.
#ifndef OPTRACE_DAEMON_API_UNIX_LISTENER_H_
#define OPTRACE_DAEMON_API_UNIX_LISTENER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "api/accept_counters.h"
#include "api/peer_registry.h"
#include "common/status.h"

namespace grpc {
class Server;
}

namespace optrace::daemon {

class UnixListener {
 public:
  // Binds `path` (replacing a stale socket file, refusing anything else),
  // mode 0660, group `group_name` when that group exists. Refuses a socket
  // folder that another user owns or others can write to (anyone could
  // swap the socket): the error names its owner and mode.
  static Result<std::unique_ptr<UnixListener>> Create(const std::string& path,
                                                      const std::string& group_name);
  ~UnixListener();  // stops accepting and removes the socket file
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Accepts connections on a thread of its own until destroyed, recording
  // credentials in `peers` and giving each connection to `server`. At the
  // fd limit it pauses accepting for a moment (counted in `counters`)
  // rather than poll again at once: the waiting connection keeps the
  // socket readable, and polling would spin.
  // REQUIRES: `server`, `peers` and `counters` outlive the listener.
  void Start(grpc::Server* server, PeerRegistry* peers, AcceptCounters* counters);

 private:
  UnixListener(std::string path, int fd, int wake_fd);
  void AcceptLoop(grpc::Server* server, PeerRegistry* peers, AcceptCounters* counters);
  const std::string path_;
  const int fd_;
  const int wake_fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_UNIX_LISTENER_H_
