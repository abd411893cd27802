// Lossless mode's wait (OPTRACE_FULL_RING=wait): a producer thread whose
// ring is full waits, for a bounded time, for the attached daemon to read
// from it, instead of dropping the event.
#ifndef OPTRACE_CLIENT_FULL_RING_WAIT_H_
#define OPTRACE_CLIENT_FULL_RING_WAIT_H_

#include <cstdint>
#include <optional>

#include "drain_waker.h"
#include "optrace/abi.h"
#include "optrace/detail/fast_path.h"

namespace optrace::client {

// Waits until the ring of `w`, full at write position `pos` by read
// position `read`, has room, waking the daemon while it sleeps; returns
// the read position that made room. Returns nullopt at once when no daemon
// is attached or when the ring's last wait ran out at this same read
// position (the daemon has not read since: it is stopped, hung or gone),
// and after `timeout_ns` without room. Adds the time waited to the
// segment's full_ring_wait_ns and a wait that ran out to
// full_ring_wait_timeouts; the caller drops and counts the event on
// nullopt, as without lossless mode.
// REQUIRES: the calling thread owns w's ring; `header` is its segment's.
std::optional<uint64_t> WaitForRoom(detail::ThreadWriter& w, uint64_t pos, uint64_t read,
                                    abi::SegmentHeader& header, DrainWaker& waker,
                                    uint64_t timeout_ns) noexcept;

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_FULL_RING_WAIT_H_
