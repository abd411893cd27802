#include "api/unix_listener.h"

#include <fcntl.h>
#include <grp.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/socket_folder.h"
#include "log/log.h"

namespace optrace::daemon {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// How long accepting pauses at the fd limit: long enough not to spin, short
// enough that a freed fd serves the next caller soon.
constexpr int kAcceptPauseMs = 100;

}  // namespace

Result<std::unique_ptr<UnixListener>> UnixListener::Create(const std::string& path,
                                                           const std::string& group_name) {
  const std::string folder = std::filesystem::path(path).parent_path();
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) return Status::IoError(Errno("socket folder " + folder));
  if (std::string problem = SocketFolderProblem(folder, ::geteuid()); !problem.empty()) {
    return Status::PermissionDenied(problem);
  }
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return Status::PermissionDenied(path + " exists and is not a socket: refusing to replace it");
    }
    ::unlink(path.c_str());  // stale socket of a daemon that died
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return Status::InvalidArgument("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status::IoError(Errno("socket"));
  // Create it 0660 from the start: no window where others could connect.
  const mode_t old_umask = ::umask(0117);
  const int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::umask(old_umask);
  if (rc != 0 || ::listen(fd, 128) != 0) {
    const Status st_err = Status::IoError(Errno("bind/listen " + path));
    ::close(fd);
    return st_err;
  }
  if (const struct group* g = ::getgrnam(group_name.c_str()); g != nullptr) {
    if (::chown(path.c_str(), static_cast<uid_t>(-1), g->gr_gid) != 0) {
      LogWarning("cannot give {} to group {}: {}", path, group_name, std::strerror(errno));
    }
  }
  ::chmod(path.c_str(), 0660);
  const int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return std::unique_ptr<UnixListener>(new UnixListener(path, fd, wake));
}

UnixListener::UnixListener(std::string path, int fd, int wake_fd)
    : path_(std::move(path)), fd_(fd), wake_fd_(wake_fd) {}

UnixListener::~UnixListener() {
  stop_.store(true);
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(fd_);
  ::close(wake_fd_);
  ::unlink(path_.c_str());
}

void UnixListener::Start(grpc::Server* server, PeerRegistry* peers, AcceptCounters* counters) {
  thread_ = std::thread([this, server, peers, counters] { AcceptLoop(server, peers, counters); });
}

void UnixListener::AcceptLoop(grpc::Server* server, PeerRegistry* peers, AcceptCounters* counters) {
  int timeout_ms = -1;
  while (!stop_.load()) {
    // After a pause, only the wake-up is watched until it is over.
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {fd_, POLLIN, 0}};
    const int ready = ::poll(fds, timeout_ms < 0 ? 2 : 1, timeout_ms);
    if ((fds[0].revents & POLLIN) != 0) break;
    timeout_ms = -1;
    if (ready <= 0) continue;
    while (true) {
      // gRPC 1.51 needs the handed-over fd non-blocking, or RPCs hang.
      const int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (conn < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          if (counters->accepts_paused_fd_limit.fetch_add(1, std::memory_order_relaxed) == 0) {
            LogWarning("at the limit of open files ({}): accepting paused for {} ms at a time",
                       std::strerror(errno), kAcceptPauseMs);
          }
          timeout_ms = kAcceptPauseMs;
        }
        break;
      }
      ucred cred{};
      socklen_t len = sizeof cred;
      if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        ::close(conn);
        continue;
      }
      peers->Add(conn, PeerCredentials{cred.pid, cred.uid, cred.gid});
      grpc::AddInsecureChannelFromFd(server, conn);
    }
  }
}

}  // namespace optrace::daemon
