#include "common/user_database.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <vector>

namespace optrace {

std::optional<UserAccount> LookUpUser(uid_t uid) {
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
    return UserAccount{entry.pw_name, entry.pw_gid};
  }
}

std::string DescribeOwnerAndMode(uid_t owner, mode_t mode) {
  const std::optional<UserAccount> account = LookUpUser(owner);
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return "owned by uid " + std::to_string(owner) + " (" +
         (account ? account->name : "no such user") + ") with mode " + octal;
}

}  // namespace optrace
