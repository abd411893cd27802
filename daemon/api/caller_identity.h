// Who called, and what they may see: a non-root caller outside the admin
// group sees and controls only producers of its own uid.
#ifndef OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
#define OPTRACE_DAEMON_API_CALLER_IDENTITY_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "api/peer_registry.h"
#include "model/session_record.h"

namespace grpc {
class ServerContextBase;
}

namespace optrace::daemon {

struct Caller {
  uid_t uid = 0;
  bool admin = false;  // may see and control every uid's producers

  // The uid a caller's requests are limited to (nullopt: no limit).
  std::optional<uint32_t> restriction() const {
    return admin ? std::nullopt : std::optional<uint32_t>(uid);
  }
  bool MaySee(const SessionRecord& session) const { return admin || session.uid == uid; }
};

// Decides callers' rights. Thread-safe (immutable after construction).
class CallerIdentifier {
 public:
  // `admin_group`: its members are admins ("" or a missing group: none).
  CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group);

  // Unix-socket callers by their credentials: admin when root, the
  // daemon's own uid, or in the admin group. TCP callers (no credentials)
  // are admins: serving TCP is an explicit opt-in of the operator
  // (docs/api.md says so). Unknown Unix peers get no rights (uid -1).
  Caller Identify(const grpc::ServerContextBase& context) const;

 private:
  bool InAdminGroup(uid_t uid, gid_t gid) const;
  const PeerRegistry* peers_;
  std::optional<gid_t> admin_gid_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_CALLER_IDENTITY_H_
