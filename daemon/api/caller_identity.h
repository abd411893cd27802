// Who called: a Unix-socket caller's rights from its kernel credentials
// (caller_rights.h says what each right allows).
#ifndef OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
#define OPTRACE_DAEMON_API_CALLER_IDENTITY_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "api/caller_rights.h"
#include "api/peer_registry.h"

namespace grpc {
class ServerContextBase;
}

namespace optrace::daemon {

// Decides callers' rights. Thread-safe (immutable after construction).
class CallerIdentifier {
 public:
  // `admin_group`: its members are admins ("" or a missing group: none).
  // The group is looked up once, here (a missing one is logged): a group
  // created later counts from the daemon's next start. `peers` must
  // outlive the identifier.
  CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group);

  // Unix-socket callers by their credentials (FromCredentials). TCP
  // callers (no credentials) are admins: serving TCP is an explicit opt-in
  // of the operator (docs/api.md says so). Unknown Unix peers get no
  // rights (uid -1).
  Caller Identify(const grpc::ServerContextBase& context) const;

  // Admin when root, the daemon's own uid, or in the admin group (as its
  // primary gid `credentials.gid` or, by the group database, as a
  // supplementary group of the uid's user); else limited to its own uid.
  Caller FromCredentials(const PeerCredentials& credentials) const;

 private:
  bool InAdminGroup(uid_t uid, gid_t gid) const;
  const PeerRegistry* peers_;
  std::optional<gid_t> admin_gid_;
  std::string admin_right_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
