#include "common/user_database.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <vector>

namespace optrace {

namespace {

// The passwd entry `lookup` (a getpw*_r call given its buffer) finds, as
// the fields the callers need; grows the buffer on ERANGE.
template <typename Lookup>
std::optional<passwd> FindEntry(std::vector<char>* buffer, Lookup lookup) {
  const long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  buffer->resize(hint > 0 ? static_cast<size_t>(hint) : 1024);
  for (;;) {
    passwd entry{};
    passwd* found = nullptr;
    const int error = lookup(&entry, buffer->data(), buffer->size(), &found);
    if (error == ERANGE && buffer->size() < (1u << 20)) {
      buffer->resize(buffer->size() * 2);
      continue;
    }
    if (error != 0 || found == nullptr) return std::nullopt;
    return entry;
  }
}

}  // namespace

std::optional<UserAccount> LookUpUser(uid_t uid) {
  std::vector<char> buffer;
  const std::optional<passwd> entry =
      FindEntry(&buffer, [uid](passwd* e, char* b, size_t n, passwd** found) {
        return ::getpwuid_r(uid, e, b, n, found);
      });
  if (!entry) return std::nullopt;
  return UserAccount{entry->pw_name, entry->pw_gid};
}

std::optional<uid_t> LookUpUid(std::string_view user) {
  if (user.empty()) return std::nullopt;
  if (user.find_first_not_of("0123456789") == std::string_view::npos) {
    uid_t uid = 0;
    const auto [end, error] = std::from_chars(user.data(), user.data() + user.size(), uid);
    if (error != std::errc() || end != user.data() + user.size() || uid == static_cast<uid_t>(-1)) {
      return std::nullopt;
    }
    return uid;
  }
  const std::string name(user);
  std::vector<char> buffer;
  const std::optional<passwd> entry =
      FindEntry(&buffer, [&name](passwd* e, char* b, size_t n, passwd** found) {
        return ::getpwnam_r(name.c_str(), e, b, n, found);
      });
  if (!entry) return std::nullopt;
  return entry->pw_uid;
}

std::string DescribeOwnerAndMode(uid_t owner, mode_t mode) {
  const std::optional<UserAccount> account = LookUpUser(owner);
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return "owned by uid " + std::to_string(owner) + " (" +
         (account ? account->name : "no such user") + ") with mode " + octal;
}

}  // namespace optrace
