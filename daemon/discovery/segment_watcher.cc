#include "discovery/segment_watcher.h"

#include <dirent.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/segment_name.h"

namespace optrace::daemon {

Result<std::unique_ptr<SegmentWatcher>> SegmentWatcher::Create(const std::string& folder,
                                                               const std::string& ns) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status::IoError(std::string("inotify_init1: ") + std::strerror(errno));
  // IN_CREATE: shm_open(O_CREAT); IN_MOVED_TO: renamed into place;
  // IN_ATTRIB: a producer touched its segment's times once it was ready.
  if (::inotify_add_watch(fd, folder.c_str(), IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR) <
      0) {
    const int err = errno;
    ::close(fd);
    return Status::IoError("cannot watch " + folder + ": " + std::strerror(err));
  }
  return std::unique_ptr<SegmentWatcher>(new SegmentWatcher(folder, ns, fd));
}

SegmentWatcher::SegmentWatcher(std::string folder, std::string ns, int fd)
    : folder_(std::move(folder)), ns_(std::move(ns)), fd_(fd) {}

SegmentWatcher::~SegmentWatcher() { ::close(fd_); }

bool SegmentWatcher::Matches(const std::string& name) const {
  const auto parsed = SegmentName::Parse(name);
  return parsed.has_value() && parsed->ns == ns_;
}

std::vector<std::string> SegmentWatcher::ReadNewNames(bool* overflowed) {
  *overflowed = false;
  std::vector<std::string> names;
  alignas(inotify_event) char buf[16384];
  while (true) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) break;  // EAGAIN: drained
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if ((ev->mask & IN_Q_OVERFLOW) != 0) *overflowed = true;
      if (ev->len == 0) continue;
      std::string name(ev->name, strnlen(ev->name, ev->len));
      if (Matches(name)) names.push_back(std::move(name));
    }
  }
  return names;
}

std::vector<std::string> SegmentWatcher::Scan() const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(folder_.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    std::string name(entry->d_name);
    if (Matches(name)) names.push_back(std::move(name));
  }
  ::closedir(dir);
  return names;
}

}  // namespace optrace::daemon
