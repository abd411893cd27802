// Discovery: the names of producer segments of one namespace, as they
// appear in the shm folder (inotify), with a full scan as a backstop.
#ifndef OPTRACE_DAEMON_DISCOVERY_SEGMENT_WATCHER_H_
#define OPTRACE_DAEMON_DISCOVERY_SEGMENT_WATCHER_H_

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace optrace::daemon {

// Thread rules: one thread. Names are returned without a leading '/', and
// only names that parse as segment names of the namespace.
class SegmentWatcher {
 public:
  // Watches `folder` (normally /dev/shm) for segments of namespace `ns`.
  // Fails when the folder cannot be watched.
  static Result<std::unique_ptr<SegmentWatcher>> Create(const std::string& folder,
                                                        const std::string& ns);
  ~SegmentWatcher();
  SegmentWatcher(const SegmentWatcher&) = delete;
  SegmentWatcher& operator=(const SegmentWatcher&) = delete;

  // Readable when there are inotify events to read (for epoll).
  int fd() const { return fd_; }

  // Names created, moved into the folder or marked ready (their times
  // touched) since the last call; a name may come more than once. Never
  // blocks. Sets `*overflowed` when the kernel dropped events (then the
  // caller should Scan()).
  std::vector<std::string> ReadNewNames(bool* overflowed);

  // Every segment name of the namespace in the folder now.
  std::vector<std::string> Scan() const;

 private:
  SegmentWatcher(std::string folder, std::string ns, int fd);
  bool Matches(const std::string& name) const;
  const std::string folder_;
  const std::string ns_;
  const int fd_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DISCOVERY_SEGMENT_WATCHER_H_
