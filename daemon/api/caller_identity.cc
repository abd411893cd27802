#include "api/caller_identity.h"

#include <grp.h>
#include <grpcpp/server_context.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "log/log.h"

namespace optrace::daemon {
namespace {

// The user name and primary gid of `uid` from the user database, or nullopt
// when it has none (or the lookup fails). Reentrant (getpwuid_r into a
// buffer of our own, grown on ERANGE): called on many handler threads at
// once, where getpwuid's shared static entry could be another thread's user.
std::optional<std::pair<std::string, gid_t>> UserOf(uid_t uid) {
  const long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(hint > 0 ? static_cast<size_t>(hint) : 1024);
  for (;;) {
    passwd entry{};
    passwd* found = nullptr;
    const int error = ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
    if (error == ERANGE && buffer.size() < (1u << 20)) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (error != 0 || found == nullptr) return std::nullopt;
    return std::make_pair(std::string(entry.pw_name), entry.pw_gid);
  }
}

}  // namespace

CallerIdentifier::CallerIdentifier(const PeerRegistry* peers, const std::string& admin_group)
    : peers_(peers) {
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
  const auto user = UserOf(uid);
  if (!user) return false;
  const auto& [name, primary_gid] = *user;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  if (::getgrouplist(name.c_str(), primary_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));
    if (::getgrouplist(name.c_str(), primary_gid, groups.data(), &count) < 0) return false;
  }
  groups.resize(static_cast<size_t>(count));
  for (gid_t g : groups) {
    if (g == *admin_gid_) return true;
  }
  return false;
}

Caller CallerIdentifier::Identify(const grpc::ServerContextBase& context) const {
  const std::string peer = context.peer();
  if (peer.rfind("fd:", 0) != 0) return Caller{::getuid(), true, admin_right_};  // TCP
  const auto cred = peers_->Lookup(peer);
  if (!cred) return Caller{static_cast<uint32_t>(-1), false, admin_right_};
  return FromCredentials(*cred);
}

Caller CallerIdentifier::FromCredentials(const PeerCredentials& credentials) const {
  const bool admin = credentials.uid == 0 || credentials.uid == ::getuid() ||
                     InAdminGroup(credentials.uid, credentials.gid);
  return Caller{credentials.uid, admin, admin_right_};
}

}  // namespace optrace::daemon
