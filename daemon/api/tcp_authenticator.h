// Who is calling over TCP (--listen). The socket has the kernel's word
// for it; TCP has only what the caller presents:
//  - a bearer token (the metadata "authorization: Bearer TOKEN"), which
//    names the user whose file in listen_token_dir holds it;
//  - else a TLS client certificate, verified against tls_client_ca during
//    the handshake, whose common name names the user (a user name of
//    this machine or a numeric uid), as PostgreSQL's "cert" method does.
// A call that carries a token is judged by it alone: a wrong token is
// refused whatever certificate the connection has. A call identified by
// neither is UNAUTHENTICATED, with a message that says what the daemon
// accepts. The identified user then has the rights it has on the socket.
#ifndef OPTRACE_DAEMON_API_TCP_AUTHENTICATOR_H_
#define OPTRACE_DAEMON_API_TCP_AUTHENTICATOR_H_

#include <grpcpp/security/auth_context.h>
#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/support/string_ref.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "api/token_table.h"
#include "common/status.h"

namespace optrace::daemon {

// A call's metadata, as gRPC hands it to handlers and auth processors.
using CallMetadata = std::multimap<grpc::string_ref, grpc::string_ref>;

// Immutable after construction; thread-safe.
class TcpAuthenticator {
 public:
  // `tokens`: listen_token_dir's, nullopt when it is not set.
  // `client_certificates`: whether the listener verifies client
  // certificates (tls_client_ca).
  TcpAuthenticator(std::optional<TokenTable> tokens, bool client_certificates);

  // The uid a call is made as. `authorization_untrusted`: its
  // "authorization" metadata, nullopt when it has none.
  // `certificate_common_name`: the common name of the connection's
  // verified client certificate, nullopt when there is none. Errors
  // (kUnauthenticated) say what was wrong, never the token: a value that
  // is not "Bearer TOKEN", a token no user has, a token sent to a daemon
  // without listen_token_dir, a common name that names no user, or
  // nothing at all (then what the daemon accepts).
  Result<uint32_t> Authenticate(std::optional<std::string_view> authorization_untrusted,
                                std::optional<std::string_view> certificate_common_name) const;

  // Authenticate with what a gRPC call carries: the first of its
  // "authorization" values (a second is refused) and the
  // "x509_common_name" of `auth` when its peer is authenticated.
  Result<uint32_t> AuthenticateCall(const CallMetadata& metadata,
                                    const grpc::AuthContext& auth) const;

  // Users with a token (for GetStatus.listeners).
  size_t token_users() const { return tokens_ ? tokens_->size() : 0; }
  bool client_certificates() const { return client_certificates_; }

 private:
  std::optional<TokenTable> tokens_;
  bool client_certificates_ = false;
};

// The gate of the TCP listener: gRPC runs it for every call before any
// handler (server reflection's included) and refuses, UNAUTHENTICATED
// with AuthenticateCall's message, each call it does not identify.
// A token is a table lookup, run on the call's own thread; a
// certificate's common name is looked up in the user database, which may
// ask a network service (LDAP, NIS): with client certificates gRPC runs
// the gate on a thread of its own. REQUIRES: `authenticator` outlives the
// server.
class TcpAuthProcessor final : public grpc::AuthMetadataProcessor {
 public:
  explicit TcpAuthProcessor(const TcpAuthenticator* authenticator)
      : authenticator_(authenticator) {}

  bool IsBlocking() const override { return authenticator_->client_certificates(); }
  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

 private:
  const TcpAuthenticator* authenticator_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_TCP_AUTHENTICATOR_H_
