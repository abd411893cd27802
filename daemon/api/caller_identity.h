// Who called: a Unix-socket caller's rights from its kernel credentials,
// a TCP caller's from the user its credentials name (tcp_authenticator.h);
// caller_rights.h says what each right allows.
#ifndef OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
#define OPTRACE_DAEMON_API_CALLER_IDENTITY_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "api/caller_rights.h"
#include "api/peer_registry.h"
#include "api/tcp_authenticator.h"

namespace grpc {
class ServerContextBase;
}

namespace optrace::daemon {

// How TCP callers are identified (--listen). With neither, a TCP caller
// has no rights.
struct TcpIdentity {
  // Identifies each call by its credentials; null when TCP has none.
  const TcpAuthenticator* authenticator = nullptr;
  // insecure_tcp_admin: every TCP caller is the daemon's own uid, an
  // admin, whatever it presents.
  bool insecure_admin = false;
};

// Decides callers' rights. Thread-safe (immutable after construction).
class CallerIdentifier {
 public:
  // `admin_group`: its members are admins ("" or a missing group: none).
  // The group is looked up once, here (a missing one is logged): a group
  // created later counts from the daemon's next start. `peers` and
  // `tcp.authenticator` must outlive the identifier.
  CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group, TcpIdentity tcp = {});

  // Unix-socket callers by their credentials (FromCredentials); unknown
  // Unix peers get no rights (uid -1). TCP callers by the user their
  // credentials name (TcpAuthenticator::AuthenticateCall), with that
  // user's rights as if it called on the socket (its primary group from
  // the user database); as admins with `tcp.insecure_admin`; with no
  // rights when not identified (the listener's TcpAuthProcessor refuses
  // those calls before any handler runs).
  Caller Identify(const grpc::ServerContextBase& context) const;

  // Admin when root, the daemon's own uid, or in the admin group (as its
  // primary gid `credentials.gid` or, by the group database, as a
  // supplementary group of the uid's user); else limited to its own uid.
  Caller FromCredentials(const PeerCredentials& credentials) const;

 private:
  bool InAdminGroup(uid_t uid, gid_t gid) const;
  const PeerRegistry* peers_;
  TcpIdentity tcp_;
  std::optional<gid_t> admin_gid_;
  std::string admin_right_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
