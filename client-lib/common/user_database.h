// Lookups in the user database that any thread may make at once.
#ifndef OPTRACE_COMMON_USER_DATABASE_H_
#define OPTRACE_COMMON_USER_DATABASE_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace optrace {

struct UserAccount {
  std::string name;
  gid_t primary_gid = 0;
};

// The account of `uid`, or nullopt when the user database has none (or the
// lookup fails). Thread-safe: getpwuid_r into a buffer of its own, sized by
// sysconf and grown on ERANGE (getpwuid's shared static entry could be
// another thread's user by the time it is read).
std::optional<UserAccount> LookUpUser(uid_t uid);

// The uid that `user` names: a number of decimal digits is that uid
// (below 4294967295, which is no uid); anything else is looked up as a
// user name (getpwnam_r, thread-safe as LookUpUser is). nullopt when it
// names no user.
std::optional<uid_t> LookUpUid(std::string_view user);

// "owned by uid 1001 (mallory) with mode 0755": for messages that refuse a
// file because of who made it. A uid without an account reads
// "(no such user)".
std::string DescribeOwnerAndMode(uid_t owner, mode_t mode);

}  // namespace optrace

#endif  // OPTRACE_COMMON_USER_DATABASE_H_
