#include "api/caller_identity.h"

#include <grp.h>
#include <grpcpp/server_context.h>
#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace optrace::daemon {

CallerIdentifier::CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group)
    : peers_(peers) {
  if (admin_group.empty()) return;
  if (const group* g = ::getgrnam(admin_group.c_str()); g != nullptr) admin_gid_ = g->gr_gid;
}

bool CallerIdentifier::InAdminGroup(uid_t uid, gid_t gid) const {
  if (!admin_gid_) return false;
  if (gid == *admin_gid_) return true;
  const passwd* pw = ::getpwuid(uid);
  if (pw == nullptr) return false;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  if (::getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));
    if (::getgrouplist(pw->pw_name, pw->pw_gid, groups.data(), &count) < 0) return false;
  }
  groups.resize(static_cast<size_t>(count));
  for (gid_t g : groups) {
    if (g == *admin_gid_) return true;
  }
  return false;
}

Caller CallerIdentifier::Identify(const grpc::ServerContextBase& context) const {
  const std::string peer = context.peer();
  if (peer.rfind("fd:", 0) != 0) return Caller{::getuid(), true};  // TCP
  const auto cred = peers_->Lookup(peer);
  if (!cred) return Caller{static_cast<uid_t>(-1), false};
  const bool admin =
      cred->uid == 0 || cred->uid == ::getuid() || InAdminGroup(cred->uid, cred->gid);
  return Caller{cred->uid, admin};
}

}  // namespace optrace::daemon
