// The producer's start-up handshake: a process that creates its segment
// while a live daemon serves its namespace waits, bounded, until that
// daemon has attached, so that its first ops land in rings that are already
// being drained (docs/abi.md, "Start-up handshake").
#ifndef OPTRACE_CLIENT_ATTACH_HANDSHAKE_H_
#define OPTRACE_CLIENT_ATTACH_HANDSHAKE_H_

#include <cstdint>

#include "optrace/abi.h"

namespace optrace::client {

// Waits until `header.attach_word` says a daemon attached, at most
// `timeout_ms` (a futex wait: no CPU while waiting; the daemon wakes it).
// Returns true when the daemon attached in time. Called once per segment,
// by the thread that created it; never again after that.
bool AwaitDaemonAttach(const abi::SegmentHeader& header, uint32_t timeout_ms);

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_ATTACH_HANDSHAKE_H_
