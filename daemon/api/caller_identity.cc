#include "api/caller_identity.h"

#include <grp.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <vector>

#include "common/user_database.h"
#include "log/log.h"

namespace optrace::daemon {

CallerIdentifier::CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group,
                                   TcpIdentity tcp)
    : peers_(peers), tcp_(tcp) {
  if (!admin_group.empty()) {
    if (const group* g = ::getgrnam(admin_group.c_str()); g != nullptr) admin_gid_ = g->gr_gid;
    if (!admin_gid_) {
      LogInfo("admin group {} does not exist: only root and uid {} see every user's sessions",
              admin_group, ::getuid());
    }
  }
  admin_right_ = DescribeAdminRight(admin_group, admin_gid_.has_value(), ::getuid());
}

bool CallerIdentifier::InAdminGroup(uid_t uid, gid_t gid) const {
  if (!admin_gid_) return false;
  if (gid == *admin_gid_) return true;
  const std::optional<UserAccount> user = LookUpUser(uid);
  if (!user) return false;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  if (::getgrouplist(user->name.c_str(), user->primary_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));
    if (::getgrouplist(user->name.c_str(), user->primary_gid, groups.data(), &count) < 0)
      return false;
  }
  groups.resize(static_cast<size_t>(count));
  for (gid_t g : groups) {
    if (g == *admin_gid_) return true;
  }
  return false;
}

Caller CallerIdentifier::Identify(const grpc::ServerContextBase& context) const {
  const Caller nobody{static_cast<uint32_t>(-1), false, admin_right_};
  const std::string peer = context.peer();
  if (peer.rfind("fd:", 0) == 0) {
    const auto cred = peers_->Lookup(peer);
    return cred ? FromCredentials(*cred) : nobody;
  }
  // TCP.
  if (tcp_.insecure_admin) return Caller{::getuid(), true, admin_right_};
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (tcp_.authenticator == nullptr || auth == nullptr) return nobody;
  const Result<uint32_t> uid =
      tcp_.authenticator->AuthenticateCall(context.client_metadata(), *auth);
  if (!uid.ok()) return nobody;
  const std::optional<UserAccount> account = LookUpUser(uid.value());
  return FromCredentials(
      PeerCredentials{0, uid.value(), account ? account->primary_gid : static_cast<gid_t>(-1)});
}

Caller CallerIdentifier::FromCredentials(const PeerCredentials& credentials) const {
  const bool admin = credentials.uid == 0 || credentials.uid == ::getuid() ||
                     InAdminGroup(credentials.uid, credentials.gid);
  return Caller{credentials.uid, admin, admin_right_};
}

}  // namespace optrace::daemon
