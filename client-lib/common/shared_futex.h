// Futex wait and wake on a 32-bit word in shared memory, between processes
// (a non-private futex: the kernel keys it on the mapped file and offset, so
// each process may map the word at its own address, even read-only to wake).
#ifndef OPTRACE_COMMON_SHARED_FUTEX_H_
#define OPTRACE_COMMON_SHARED_FUTEX_H_

#include <atomic>
#include <cstdint>

namespace optrace {

// Sleeps while `*word` equals `expected`, at most `timeout_ns` (CLOCK_MONOTONIC
// relative; 0 waits until woken). Returns at once when the word differs, and
// early on a wake or a signal: callers re-check their condition in a loop.
// Returns false when the timeout passed.
bool SharedFutexWait(const std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns);

// Wakes up to `count` waiters of `word`. One system call; harmless when
// nobody waits. Returns the number woken, or -1 when the kernel refused
// (a word outside any mapping: EFAULT).
int SharedFutexWake(const std::atomic<uint32_t>* word, int count);

}  // namespace optrace

#endif  // OPTRACE_COMMON_SHARED_FUTEX_H_
