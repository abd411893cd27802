// The producer's liveness lock (ABI minor 4, docs/abi.md "Liveness"): a
// shared flock(2) that a producer holds on its own segment for as long as
// it runs. The kernel drops it when the producer's last descriptor of that
// open file goes (exit, crash, exec), so a consumer can tell a live
// producer from a dead one without the producer's pid meaning anything in
// the consumer's PID namespace.
#ifndef OPTRACE_COMMON_PRODUCER_LOCK_H_
#define OPTRACE_COMMON_PRODUCER_LOCK_H_

namespace optrace {

// Takes the shared lock on `fd` (a descriptor of the producer's segment),
// waiting while a consumer's probe holds it for an instant. Returns false
// when the file system refuses locks (the producer then says kPidOnly).
// The lock stays while any descriptor of the same open file is open: a
// fork child must close its copy, never unlock it.
bool TakeProducerLock(int fd);

// What a consumer's probe of a segment found.
enum class ProducerLockState {
  kHeld,     // some process holds the lock: the producer (or a copy of its descriptor) lives
  kFree,     // nobody holds it: every descriptor of the producer's open file is closed
  kUnknown,  // the probe failed (the file system refuses locks): ask the pid
};

// Probes the lock through the consumer's own descriptor `fd` of the
// segment (another open file than the producer's): tries an exclusive
// lock without waiting and, if it gets it, drops it at once.
ProducerLockState ProbeProducerLock(int fd);

}  // namespace optrace

#endif  // OPTRACE_COMMON_PRODUCER_LOCK_H_
