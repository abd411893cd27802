// The gRPC server: the OpTrace service on the Unix socket (with peer
// credentials) and, when asked, on TCP; server reflection on.
#ifndef OPTRACE_DAEMON_API_API_SERVER_H_
#define OPTRACE_DAEMON_API_API_SERVER_H_

#include <memory>
#include <string>

#include "api/peer_registry.h"
#include "api/unix_listener.h"
#include "common/status.h"

namespace grpc {
class Server;
class Service;
}  // namespace grpc

namespace optrace::daemon {

struct ApiServerOptions {
  std::string socket;        // Unix socket path
  std::string socket_group;  // group given the socket when it exists
  std::string listen;        // HOST:PORT, "" = no TCP
  std::string tls_cert;      // PEM; required for a non-loopback `listen`
  std::string tls_key;
};

class ApiServer {
 public:
  // Builds and starts the server. Errors: a non-loopback `listen` without
  // TLS, unreadable TLS files, a socket that cannot be created, a TCP port
  // that cannot be bound. REQUIRES: `service` outlives the server.
  static Result<std::unique_ptr<ApiServer>> Start(const ApiServerOptions& options,
                                                  grpc::Service* service, PeerRegistry* peers,
                                                  AcceptCounters* accepts);
  ~ApiServer();

  // Ends every call (Tail streams included) within a short deadline.
  void Shutdown();

 private:
  ApiServer() = default;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<UnixListener> listener_;
};

// True for "HOST:P" where HOST is loopback by IsLoopbackHost: "localhost",
// an address of 127.0.0.0/8 or "[::1]" (an IPv6 host needs its brackets).
bool IsLoopbackAddress(const std::string& host_port);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_API_SERVER_H_
