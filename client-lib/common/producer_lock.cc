#include "common/producer_lock.h"

#include <sys/file.h>

#include <cerrno>

namespace optrace {

bool TakeProducerLock(int fd) {
  // A consumer's probe holds the exclusive lock only between two system
  // calls: the wait is that long.
  while (::flock(fd, LOCK_SH) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

ProducerLockState ProbeProducerLock(int fd) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    ::flock(fd, LOCK_UN);
    return ProducerLockState::kFree;
  }
  return errno == EWOULDBLOCK ? ProducerLockState::kHeld : ProducerLockState::kUnknown;
}

}  // namespace optrace
