// The out-of-line half of the producer hot path (the inline half is
// optrace/detail/fast_path.h): ring claim and release, full rings, op id
// blocks, first use.
#ifndef OPTRACE_CLIENT_THREAD_WRITER_H_
#define OPTRACE_CLIENT_THREAD_WRITER_H_

#include "optrace/detail/fast_path.h"

namespace optrace::client {

// Op ids a thread takes from the process counter at a time.
inline constexpr uint64_t kOpIdBlock = 1024;

// In a fork child: forgets the calling thread's ring (it belongs to the
// parent's segment) and makes the next op start the runtime again.
void ResetThreadWriterAfterFork();

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_THREAD_WRITER_H_
