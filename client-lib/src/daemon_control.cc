#include "daemon_control.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "common/segment_name.h"

namespace optrace::client {
namespace {

struct ControlSnapshot {
  uint32_t default_level;
  bool daemon_alive;
};

// Reads the control segment of daemon `uid`, checking everything before use.
std::optional<ControlSnapshot> ReadControl(std::string_view ns, uint32_t uid) {
  const std::string path = std::string(kShmFolder) + "/" + ControlSegmentName(ns, uid);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<ControlSnapshot> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
      static_cast<uint64_t>(st.st_size) == abi::kControlBytes) {
    void* p = ::mmap(nullptr, abi::kControlBytes, PROT_READ, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED) {
      const auto* block = static_cast<const abi::ControlBlock*>(p);
      if (block->magic == abi::kControlMagic && block->abi_major == abi::kAbiMajor) {
        // A daemon killed with SIGKILL leaves its control segment behind
        // (EPERM from kill means alive, owned by someone else).
        const auto pid = static_cast<pid_t>(block->daemon_pid);
        out = ControlSnapshot{
            std::min<uint32_t>(block->default_level.load(std::memory_order_acquire),
                               abi::kMaxLevel),
            pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM)};
      }
      ::munmap(p, abi::kControlBytes);
    }
  }
  ::close(fd);
  return out;
}

}  // namespace

std::optional<abi::LevelValue> ReadDaemonDefaultLevel(std::string_view ns) {
  std::optional<uint32_t> best;
  for (uint32_t uid : {static_cast<uint32_t>(::getuid()), 0u}) {
    const auto c = ReadControl(ns, uid);
    if (c && c->daemon_alive) best = std::max(best.value_or(0), c->default_level);
  }
  if (!best) return std::nullopt;
  return static_cast<abi::LevelValue>(*best);
}

bool DaemonServesNamespace(std::string_view ns) {
  return ReadControl(ns, static_cast<uint32_t>(::getuid())).has_value() ||
         ReadControl(ns, 0).has_value();
}

}  // namespace optrace::client
