// Reads of shared memory that survive the producer shrinking or corrupting
// its segment: a SIGBUS (or SIGSEGV) inside a guarded call returns false
// instead of killing the consumer.
#ifndef OPTRACE_READER_SHM_FAULT_GUARD_H_
#define OPTRACE_READER_SHM_FAULT_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace optrace::reader {

// Installs the process-wide SIGBUS/SIGSEGV handler used by GuardedCall.
// Idempotent and thread-safe. A fault outside a guarded call, or at an
// address outside the guarded range, still terminates the process as usual.
void InstallShmFaultHandler();

// Runs fn(ctx) with faults in [range_begin, range_begin + range_bytes)
// turned into a `false` return. Returns true when fn completed.
// REQUIRES: fn holds no object with a destructor (it may be abandoned
// mid-way) and does not nest GuardedCall. Thread-safe (per-thread state).
bool GuardedCall(const void* range_begin, size_t range_bytes, void (*fn)(void*), void* ctx);

// Copies `bytes` from `src` (inside the guarded range) to private memory.
bool GuardedCopy(const void* range_begin, size_t range_bytes, void* dst, const void* src,
                 size_t bytes);

// GuardedCall for a lambda: `f` runs guarded. REQUIRES as for GuardedCall:
// `f` captures by reference only and creates no object with a destructor.
template <typename F>
bool Guarded(const void* range_begin, size_t range_bytes, F&& f) {
  using Fn = std::remove_reference_t<F>;
  return GuardedCall(
      range_begin, range_bytes, [](void* p) { (*static_cast<Fn*>(p))(); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

}  // namespace optrace::reader

#endif  // OPTRACE_READER_SHM_FAULT_GUARD_H_
