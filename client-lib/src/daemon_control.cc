#include "daemon_control.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>
#include <vector>

#include "common/segment_name.h"

namespace optrace::client {
namespace {

// Maps the control segment of daemon `uid` read-only, once the file passed
// its checks: owned by `uid`, the right size, magic and major. nullptr when
// it is absent or fails them. The caller unmaps it (kControlBytes).
const abi::ControlBlock* MapControlBlock(std::string_view ns, uint32_t uid) {
  const std::string path = std::string(kShmFolder) + "/" + ControlSegmentName(ns, uid);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return nullptr;
  struct stat st {};
  const abi::ControlBlock* block = nullptr;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
      static_cast<uint64_t>(st.st_size) == abi::kControlBytes) {
    void* p = ::mmap(nullptr, abi::kControlBytes, PROT_READ, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED) {
      block = static_cast<const abi::ControlBlock*>(p);
      if (block->magic != abi::kControlMagic || block->abi_major != abi::kAbiMajor) {
        ::munmap(p, abi::kControlBytes);
        block = nullptr;
      }
    }
  }
  ::close(fd);
  return block;
}

// True when `pid` runs (EPERM from kill means alive, owned by someone else).
// A daemon killed with SIGKILL leaves its control segment behind.
bool ProcessAlive(uint32_t pid) {
  const auto p = static_cast<pid_t>(pid);
  return p > 0 && (::kill(p, 0) == 0 || errno == EPERM);
}

struct ControlSnapshot {
  uint32_t default_level;
  bool daemon_alive;
  bool attach_handshake;  // the daemon signals SegmentHeader::attach_word (minor >= 1)
};

// Reads the control segment of daemon `uid`, checking everything before use.
std::optional<ControlSnapshot> ReadControl(std::string_view ns, uint32_t uid) {
  const abi::ControlBlock* block = MapControlBlock(ns, uid);
  if (block == nullptr) return std::nullopt;
  const ControlSnapshot out{
      std::min<uint32_t>(block->default_level.load(std::memory_order_acquire), abi::kMaxLevel),
      ProcessAlive(block->daemon_pid), block->control_bytes >= abi::kControlBytesWithWake};
  ::munmap(const_cast<abi::ControlBlock*>(block), abi::kControlBytes);
  return out;
}

// Daemons a producer listens to: one of its own uid, and one running as a
// system account (root, or a dedicated user such as `optrace`: uids below
// 1000, which only the administrator creates). Found by listing the
// namespace's control segments.
std::vector<uint32_t> TrustedDaemonUids(std::string_view ns) {
  constexpr uint32_t kFirstUserUid = 1000;
  const auto own = static_cast<uint32_t>(::getuid());
  std::vector<uint32_t> uids = {own};
  const std::string prefix = ControlSegmentName(ns, 0).substr(0, ns.size() + 9);  // "<ns>.control."
  DIR* dir = ::opendir(std::string(kShmFolder).c_str());
  if (dir == nullptr) return uids;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name(entry->d_name);
    if (name.substr(0, prefix.size()) != prefix) continue;
    uint32_t uid = 0;
    const std::string_view digits = name.substr(prefix.size());
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), uid);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) continue;
    if (uid < kFirstUserUid && uid != own) uids.push_back(uid);
  }
  ::closedir(dir);
  return uids;
}

}  // namespace

std::optional<LiveDaemons> ReadLiveDaemons(std::string_view ns) {
  std::optional<LiveDaemons> out;
  for (uint32_t uid : TrustedDaemonUids(ns)) {
    const auto c = ReadControl(ns, uid);
    if (!c || !c->daemon_alive) continue;
    if (!out) out = LiveDaemons{};
    out->default_level =
        std::max(out->default_level, static_cast<abi::LevelValue>(c->default_level));
    out->attach_handshake = out->attach_handshake || c->attach_handshake;
  }
  return out;
}

bool DaemonServesNamespace(std::string_view ns) {
  for (uint32_t uid : TrustedDaemonUids(ns)) {
    if (ReadControl(ns, uid).has_value()) return true;
  }
  return false;
}

const abi::ControlBlock* MapWakeBlockOf(std::string_view ns, uint32_t daemon_pid) {
  for (uint32_t uid : TrustedDaemonUids(ns)) {
    const abi::ControlBlock* block = MapControlBlock(ns, uid);
    if (block == nullptr) continue;
    if (block->daemon_pid == daemon_pid && block->control_bytes >= abi::kControlBytesWithWake) {
      return block;
    }
    ::munmap(const_cast<abi::ControlBlock*>(block), abi::kControlBytes);
  }
  return nullptr;
}

}  // namespace optrace::client
