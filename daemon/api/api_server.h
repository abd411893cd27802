// The gRPC server: the OpTrace service on the Unix socket (with peer
// credentials) and, when asked, on TCP, behind the gate of
// tcp_authenticator.h; server reflection on.
#ifndef OPTRACE_DAEMON_API_API_SERVER_H_
#define OPTRACE_DAEMON_API_API_SERVER_H_

#include <memory>
#include <string>

#include "api/peer_registry.h"
#include "api/tcp_authenticator.h"
#include "api/unix_listener.h"
#include "common/status.h"
#include "optrace/v1/optrace.pb.h"

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
  std::string tls_client_ca;  // PEM of the CA of client certificates; "" = none
  // Identifies TCP callers: every call on `listen` goes through its
  // TcpAuthProcessor. Null only with `insecure_tcp_admin`.
  const TcpAuthenticator* tcp_authenticator = nullptr;
  bool insecure_tcp_admin = false;  // serve TCP without identifying callers
};

class ApiServer {
 public:
  // Builds and starts the server. Errors: a non-loopback `listen` without
  // TLS, a `listen` without `tcp_authenticator` or `insecure_tcp_admin`,
  // unreadable TLS files, a socket that cannot be created, a TCP port that
  // cannot be bound. Plaintext TCP uses gRPC's local credentials, which
  // refuse peers that are not on this machine's loopback. REQUIRES:
  // `service` and `options.tcp_authenticator` outlive the server.
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

// The TCP listener of `options` as `optrace status` lists it
// (GetStatusResponse.listeners): its address, TLS, what identifies its
// callers, and with insecure_tcp_admin the warning that every caller is an
// admin. REQUIRES: `options.listen` is not "".
v1::Listener DescribeTcpListener(const ApiServerOptions& options);

// True for "HOST:P" where HOST is loopback by IsLoopbackHost: "localhost",
// an address of 127.0.0.0/8 or "[::1]" (an IPv6 host needs its brackets).
bool IsLoopbackAddress(const std::string& host_port);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_API_SERVER_H_
