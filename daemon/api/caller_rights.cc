#include "api/caller_rights.h"

namespace optrace::daemon {

std::string DescribeAdminRight(std::string_view admin_group, bool group_exists,
                               uint32_t daemon_uid) {
  const std::string group(admin_group);
  if (!group.empty() && group_exists) {
    return "membership of group " + group +
           " (or root): an administrator adds a user with "
           "`sudo usermod -aG " +
           group + " USER`, effective at the user's next login";
  }
  const std::string owner = "root or uid " + std::to_string(daemon_uid) + " (the daemon's own)";
  if (!group.empty()) {
    return owner + "; the daemon's admin group " + group +
           " does not exist on this machine (an administrator creates it with "
           "`sudo groupadd --system " +
           group + "` and restarts optraced)";
  }
  return owner + "; this daemon has no admin group (admin_group in its config is empty)";
}

Status CheckMaySee(const Caller& caller, const SessionRecord& session) {
  if (caller.MaySee(session)) return Status::Ok();
  return Status::PermissionDenied("session " + std::to_string(session.id) +
                                  " belongs to another user: seeing or controlling other "
                                  "users' sessions needs " +
                                  caller.admin_right);
}

Status CheckAdmin(const Caller& caller, std::string_view action) {
  if (caller.admin) return Status::Ok();
  return Status::PermissionDenied(std::string(action) + " needs " + caller.admin_right);
}

Status CheckLevelScope(const Caller& caller, const v1::SetLevelRequest& request) {
  if (request.session_id() != 0 || request.pid() != 0) return Status::Ok();
  const Status st = request.label().empty()
                        ? CheckAdmin(caller,
                                     "changing the global default level (it reaches every "
                                     "user's producers)")
                        : CheckAdmin(caller,
                                     "changing the level by label (it reaches every user's "
                                     "producers with that label, now and later)");
  if (st.ok()) return st;
  return Status::PermissionDenied(st.message() +
                                  "; change the level of your own session or pid instead");
}

void LimitStatusToCaller(const Caller& caller, v1::GetStatusResponse* status) {
  if (caller.admin) return;
  status->clear_writer_last_error();
  if (status->has_forward()) status->mutable_forward()->clear_last_error();
}

}  // namespace optrace::daemon
