#include "api/peer_registry.h"

#include <sys/stat.h>

#include <charconv>

namespace optrace::daemon {

bool PeerRegistry::StillTheSocketOf(int fd, const Entry& entry) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == entry.device &&
         st.st_ino == entry.inode;
}

void PeerRegistry::Add(int fd, PeerCredentials credentials) {
  struct stat st {};
  const bool known = ::fstat(fd, &st) == 0;
  std::lock_guard<std::mutex> lock(mu_);
  // One fstat per live connection and accept: the entries are at most the
  // daemon's open fds.
  std::erase_if(by_fd_, [](const auto& e) { return !StillTheSocketOf(e.first, e.second); });
  if (known) by_fd_[fd] = Entry{credentials, st.st_dev, st.st_ino};
}

std::optional<PeerCredentials> PeerRegistry::Lookup(const std::string& peer) const {
  constexpr std::string_view kPrefix = "fd:";
  if (peer.rfind(kPrefix, 0) != 0) return std::nullopt;
  int fd = -1;
  const char* begin = peer.data() + kPrefix.size();
  auto [ptr, ec] = std::from_chars(begin, peer.data() + peer.size(), fd);
  if (ec != std::errc() || ptr != peer.data() + peer.size()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_fd_.find(fd);
  if (it == by_fd_.end() || !StillTheSocketOf(fd, it->second)) return std::nullopt;
  return it->second.credentials;
}

size_t PeerRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_fd_.size();
}

}  // namespace optrace::daemon
