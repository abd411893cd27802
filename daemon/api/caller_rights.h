// What a caller of the API may see and do. Connecting is one right (the
// socket's group); seeing and controlling every user's sessions is
// another (root, the daemon's own uid, or the admin group). Everyone else
// sees and controls only the sessions and producers of its own uid, and
// may not change what every user's producers record (the global level, a
// level by label) nor ask fleet queries. Each refusal is PERMISSION_DENIED
// with a message that names the right it lacks and how to get it.
#ifndef OPTRACE_DAEMON_API_CALLER_RIGHTS_H_
#define OPTRACE_DAEMON_API_CALLER_RIGHTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "model/session_record.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

struct Caller {
  uint32_t uid = 0;
  bool admin = false;  // may see and control every uid's sessions and producers
  // What makes a caller an admin on this daemon, completed into the
  // message of each PERMISSION_DENIED ("... needs <admin_right>").
  std::string admin_right;

  // The uid a caller's requests are limited to (nullopt: no limit).
  std::optional<uint32_t> restriction() const {
    return admin ? std::nullopt : std::optional<uint32_t>(uid);
  }
  bool MaySee(const SessionRecord& session) const { return admin || session.uid == uid; }
};

// `admin_right` for a daemon whose admin group is `admin_group` ("" = none
// configured; `group_exists` false when no such group is on this machine)
// and which runs as `daemon_uid`. Says how an administrator grants it.
std::string DescribeAdminRight(std::string_view admin_group, bool group_exists,
                               uint32_t daemon_uid);

// OK when `caller` may see and control `session`; PERMISSION_DENIED naming
// the session and the right otherwise.
Status CheckMaySee(const Caller& caller, const SessionRecord& session);

// OK for admins; PERMISSION_DENIED "<action> needs <admin_right>" for
// everyone else. `action` names what was asked, e.g. "a fleet query".
Status CheckAdmin(const Caller& caller, std::string_view action);

// OK when `caller` may change levels in the scope of `request`: admins any
// scope; others only one session or pid (whose producers the service then
// limits to the caller's uid). A global or by-label change reaches every
// user's producers, now and later: PERMISSION_DENIED for non-admins.
Status CheckLevelScope(const Caller& caller, const v1::SetLevelRequest& request);

// Removes from `status` what only admins may read: the texts of the
// writer's and the forwarder's last errors, which may quote other users'
// ops (ClickHouse echoes rows it refuses). Counts stay: they name no user,
// session or op. Leaves an admin's status as it is.
void LimitStatusToCaller(const Caller& caller, v1::GetStatusResponse* status);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_CALLER_RIGHTS_H_
