// The daemon's read-only control segment "/<namespace>.control.<uid>": the
// default level that producers start at before the daemon attaches to them
// (see docs/abi.md, "Control segment").
#ifndef OPTRACE_DAEMON_CONTROL_CONTROL_SEGMENT_H_
#define OPTRACE_DAEMON_CONTROL_CONTROL_SEGMENT_H_

#include <memory>
#include <string>

#include "common/status.h"
#include "optrace/abi.h"

namespace optrace::daemon {

// Owns the segment: created at start (mode 0644, replacing a stale one),
// removed by the destructor. Thread-safe (atomic stores only).
class ControlSegment {
 public:
  // Creates "<shm_folder>/<ns>.control.<our uid>". Errors: a segment of
  // that name another user made (PermissionDenied, naming its owner and
  // mode: the sticky shm folder keeps us from replacing it), or any other
  // create, size or map failure (IoError naming the path).
  static Result<std::unique_ptr<ControlSegment>> Create(const std::string& shm_folder,
                                                        const std::string& ns);
  ~ControlSegment();
  ControlSegment(const ControlSegment&) = delete;
  ControlSegment& operator=(const ControlSegment&) = delete;

  // Publishes the level new producers start at (the configured default,
  // raised by live tails).
  void SetDefaultLevel(abi::LevelValue level);
  // Refreshes the heartbeat (CLOCK_MONOTONIC ns).
  void Heartbeat(uint64_t now_ns);

  // The drain thread's sleep, as producers see it: while `sleeping`, a
  // producer whose ring crosses its watermark wakes the futex word
  // wake_word() (docs/abi.md, "Wake-ups").
  void SetDrainSleeping(bool sleeping);
  const std::atomic<uint32_t>& wake_word() const { return block_->wake_word; }
  // Ends every wait on wake_word() for good (the daemon stops).
  void StopWakeWaiters();

 private:
  ControlSegment(std::string path, abi::ControlBlock* block);
  const std::string path_;
  abi::ControlBlock* const block_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_CONTROL_CONTROL_SEGMENT_H_
