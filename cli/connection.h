// The gRPC channel to optraced: its Unix socket (the default), or TCP with
// --server HOST:PORT, in plaintext to a loopback address or over TLS with
// --tls-ca. Over TCP the caller says who it is with a bearer token
// (--token-file, OPTRACE_TOKEN_FILE) or a TLS client certificate
// (--tls-cert, --tls-key); on the socket the daemon knows its uid. Every
// subcommand talks to the daemon through one Connection.
#ifndef OPTRACE_CLI_CONNECTION_H_
#define OPTRACE_CLI_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "cli_error.h"
#include "optrace/v1/optrace.grpc.pb.h"

namespace optrace::cli {

// How long a unary call may take before the CLI gives up on the daemon.
inline constexpr std::chrono::seconds kUnaryDeadline{15};

// Where the daemon is, as the global flags give it.
struct ConnectionOptions {
  std::string socket;  // a Unix socket path; "" = OPTRACE_SOCKET or the default
  std::string server;  // HOST:PORT for TCP; overrides `socket` when set
  std::string tls_ca;  // PEM file of the CA that signed the server's certificate
  // The file of the caller's bearer token, for `server`; "" =
  // OPTRACE_TOKEN_FILE when set.
  std::string token_file;
  std::string tls_cert;  // PEM client certificate and its key, for `server`
  std::string tls_key;
};

class Connection {
 public:
  // Resolves `options` and creates the channel (lazily: nothing connects
  // until the first call); reads the token file once. Fails with
  // kExitUsage for a --server that is not HOST:PORT, plaintext to a host
  // that is not loopback, a TLS file that cannot be read, --tls-cert
  // without --tls-key or --tls-ca, or TCP credentials given for the Unix
  // socket (OPTRACE_TOKEN_FILE is then ignored); with kExitFailure for a
  // token file that ReadTokenFile refuses (other users may read it, ...),
  // and for the fallback socket folder (/tmp/optrace-$UID) when another
  // user owns it or others can write to it (common/socket_folder.h says
  // why).
  static std::unique_ptr<Connection> Open(const ConnectionOptions& options, CliError* error);

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  v1::OpTrace::Stub& stub() { return *stub_; }

  // The daemon's address as users know it: the socket path or HOST:PORT.
  const std::string& address() const { return address_; }

  // A context for one call, carrying the bearer token when there is one.
  // `deadline` nullopt: no deadline (streams that run until the user
  // stops them).
  std::unique_ptr<grpc::ClientContext> NewContext(
      std::optional<std::chrono::milliseconds> deadline = kUnaryDeadline) const;

 private:
  Connection(std::string address, std::shared_ptr<grpc::Channel> channel,
             std::string authorization = "");

  std::string address_;
  std::string authorization_;  // "Bearer TOKEN", or "" for none
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::OpTrace::Stub> stub_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_CONNECTION_H_
