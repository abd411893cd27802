// One daemon per namespace and user: two daemons draining the same rings
// would split sessions between them.
#ifndef OPTRACE_DAEMON_CONTROL_INSTANCE_LOCK_H_
#define OPTRACE_DAEMON_CONTROL_INSTANCE_LOCK_H_

#include <memory>
#include <string>

#include "common/status.h"

namespace optrace::daemon {

// An exclusive flock on "<folder>/optraced-<namespace>.lock", held for the
// daemon's life (released by the kernel if it dies).
class InstanceLock {
 public:
  // Fails with kUnavailable naming the holder's pid when another daemon of
  // the namespace runs.
  static Result<std::unique_ptr<InstanceLock>> Acquire(const std::string& folder,
                                                       const std::string& ns);
  ~InstanceLock();
  InstanceLock(const InstanceLock&) = delete;
  InstanceLock& operator=(const InstanceLock&) = delete;

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_CONTROL_INSTANCE_LOCK_H_
