#include "control/instance_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace optrace::daemon {

Result<std::unique_ptr<InstanceLock>> InstanceLock::Acquire(const std::string& folder,
                                                            const std::string& ns) {
  const std::string path = folder + "/optraced-" + ns + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {};
    [[maybe_unused]] ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    return Status::Unavailable("another optraced (pid " + std::string(pid) +
                               ") already serves namespace '" + ns + "' (lock " + path + ")");
  }
  const std::string me = std::to_string(::getpid());
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(fd, me.data(), me.size(), 0);
  }
  return std::unique_ptr<InstanceLock>(new InstanceLock(fd));
}

InstanceLock::~InstanceLock() { ::close(fd_); }

}  // namespace optrace::daemon
