#include "api/peer_registry.h"

#include <charconv>

namespace optrace::daemon {

void PeerRegistry::Add(int fd, PeerCredentials credentials) {
  std::lock_guard<std::mutex> lock(mu_);
  by_fd_[fd] = credentials;
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
  if (it == by_fd_.end()) return std::nullopt;
  return it->second;
}

}  // namespace optrace::daemon
