#include "storage/database_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace optrace::daemon {
namespace {

constexpr mode_t kOwnerOnly = 0600;

// Sets `path` to kOwnerOnly; creates it first when `create`. A file that is
// absent (and not to be created) is left so.
Status MakeOwnerOnly(const std::string& path, bool create) {
  const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0);
  const int fd = ::open(path.c_str(), flags, kOwnerOnly);
  if (fd < 0) {
    if (!create && errno == ENOENT) return Status::Ok();
    return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  }
  const int rc = ::fchmod(fd, kOwnerOnly);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Status::IoError("cannot make " + path + " 0600: " + std::strerror(err));
  return Status::Ok();
}

}  // namespace

Status MakeDatabaseFilesOwnerOnly(const std::string& db_path) {
  if (Status st = MakeOwnerOnly(db_path, /*create=*/true); !st.ok()) return st;
  for (const char* suffix : {"-wal", "-shm"}) {
    if (Status st = MakeOwnerOnly(db_path + suffix, /*create=*/false); !st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace optrace::daemon
