#include "common/socket_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/user_database.h"

namespace optrace {

std::string SocketFolderProblem(const std::string& folder, uid_t uid) {
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    return "socket folder " + folder + ": " + std::strerror(errno);
  }
  const bool owner_ok = st.st_uid == uid || st.st_uid == 0;
  if (S_ISDIR(st.st_mode) && owner_ok && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0) return "";
  const std::string what = S_ISDIR(st.st_mode) ? "" : " and is not a folder";
  return "socket folder " + folder + " is " + DescribeOwnerAndMode(st.st_uid, st.st_mode) + what +
         ": it must be a folder owned by uid " + std::to_string(uid) +
         " or root and writable by its owner only, or another user could replace the socket; "
         "refusing to use it (remove it, or choose another socket)";
}

}  // namespace optrace
