#include "control/control_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "common/segment_name.h"
#include "common/shared_futex.h"
#include "common/user_database.h"

namespace optrace::daemon {

Result<std::unique_ptr<ControlSegment>> ControlSegment::Create(const std::string& shm_folder,
                                                               const std::string& ns) {
  const std::string path =
      shm_folder + "/" + ControlSegmentName(ns, static_cast<uint32_t>(::getuid()));
  // A stale segment of a daemon that died is replaced: unlink first so that
  // producers that still map the old one keep a consistent (dead) copy.
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (err == EEXIST && ::lstat(path.c_str(), &st) == 0 && st.st_uid != ::getuid()) {
      // The shm folder's sticky bit keeps us from removing another user's file.
      return Status::PermissionDenied(
          path + " is " + DescribeOwnerAndMode(st.st_uid, st.st_mode) + ", not by uid " +
          std::to_string(::getuid()) +
          ": another user made it, and only its owner or root may remove it; the daemon cannot "
          "start in namespace " +
          ns + " until it is gone (or give another --namespace)");
    }
    return Status::IoError("cannot create " + path + ": " + std::strerror(err));
  }
  ::fchmod(fd, 0644);
  if (::ftruncate(fd, abi::kControlBytes) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(path.c_str());
    return Status::IoError("cannot size " + path + ": " + std::strerror(err));
  }
  void* p = ::mmap(nullptr, abi::kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    ::unlink(path.c_str());
    return Status::IoError("cannot map " + path + ": " + std::strerror(errno));
  }
  auto* block = static_cast<abi::ControlBlock*>(p);
  block->magic = abi::kControlMagic;
  block->abi_major = abi::kAbiMajor;
  block->abi_minor = abi::kAbiMinor;
  block->control_bytes = sizeof(abi::ControlBlock);
  block->daemon_pid = static_cast<uint32_t>(::getpid());
  block->daemon_uid = static_cast<uint32_t>(::getuid());
  block->drain_sleeping.store(0, std::memory_order_relaxed);
  block->wake_word.store(0, std::memory_order_relaxed);
  return std::unique_ptr<ControlSegment>(new ControlSegment(path, block));
}

ControlSegment::ControlSegment(std::string path, abi::ControlBlock* block)
    : path_(std::move(path)), block_(block) {}

ControlSegment::~ControlSegment() {
  ::unlink(path_.c_str());
  ::munmap(block_, abi::kControlBytes);
}

void ControlSegment::SetDefaultLevel(abi::LevelValue level) {
  block_->default_level.store(static_cast<uint32_t>(level), std::memory_order_relaxed);
  // Release: a producer that sees the new generation sees the level.
  block_->level_generation.fetch_add(1, std::memory_order_release);
}

void ControlSegment::Heartbeat(uint64_t now_ns) {
  block_->heartbeat_ns.store(now_ns, std::memory_order_relaxed);
}

}  // namespace optrace::daemon

namespace optrace::daemon {

void ControlSegment::SetDrainSleeping(bool sleeping) {
  // Seq_cst: the store is ordered before the drain thread's next look at
  // the rings (after waking) and after its last one (before sleeping), as
  // far as one flag can be; a crossing missed in between is caught at the
  // producer's next fill check or by the drain thread's timer.
  block_->drain_sleeping.store(sleeping ? 1 : 0, std::memory_order_seq_cst);
}

void ControlSegment::StopWakeWaiters() {
  block_->wake_word.store(1, std::memory_order_release);
  SharedFutexWake(&block_->wake_word, INT32_MAX);
}

}  // namespace optrace::daemon
