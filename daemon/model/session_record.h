// One producer process attach: identity, life and loss counters.
#ifndef OPTRACE_DAEMON_MODEL_SESSION_RECORD_H_
#define OPTRACE_DAEMON_MODEL_SESSION_RECORD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "model/source_listing.h"
#include "model/span.h"
#include "model/window_limits.h"

namespace optrace::daemon {

enum class SessionState : uint8_t { kRunning = 0, kExited = 1, kCrashed = 2 };

std::string_view SessionStateName(SessionState state);  // "running", "exited", "crashed"

// What the store trimmed from a session (its rolling window, or retention
// making room): spans and instants that were stored and are no longer.
// Kept by the store, never by the drain thread: 0 in the drain's records,
// and a batch's SessionRecord leaves the stored values alone.
struct SessionTrim {
  uint64_t spans = 0;
  uint64_t instants = 0;
  // The last start of the newest span page trimmed: every span that started
  // after it is still stored; 0 = nothing trimmed.
  int64_t before_ns = 0;

  bool operator==(const SessionTrim&) const = default;
};

// Counters are totals for the whole session (not deltas): every batch that
// carries a SessionRecord replaces the stored one (but for `trim` and
// `window`, which the store keeps: CopyStoreKept).
struct SessionRecord {
  SessionId id = 0;
  std::string segment_name;  // unique: how a restarted daemon finds the session
  uint32_t pid = 0;          // the producer's own pid, in its PID namespace
  uint32_t uid = 0;          // the segment's owner
  // The pid was verified as the producer's in the daemon's PID namespace
  // (reader::SegmentGeometry::pid_verified); otherwise it, the executable
  // and the command line are only what the producer says of itself.
  bool pid_verified = true;
  std::string executable;
  std::string command_line;
  std::string label;     // OPTRACE_SESSION
  int64_t start_ns = 0;  // CLOCK_REALTIME of the segment's creation
  int64_t end_ns = 0;    // 0 while running
  SessionState state = SessionState::kRunning;
  uint64_t events = 0;                   // events read from the rings
  uint64_t spans = 0;                    // spans produced (all statuses)
  uint64_t instants = 0;                 // marks and counters
  uint64_t open_ops = 0;                 // ops open now (running) or left incomplete (ended)
  uint64_t dropped_ring_full = 0;        // producer: ring full
  uint64_t dropped_no_ring = 0;          // producer: no free ring
  uint64_t dropped_shed = 0;             // daemon: writer queue overflowed
  uint64_t dropped_daemon_restart = 0;   // daemon: read but not committed before a crash
  uint64_t dropped_invalid = 0;          // daemon: events that broke an ABI rule
  uint64_t strings_dropped = 0;          // producer: string table full
  uint64_t names_capped = 0;             // producer: names/tags replaced at a cap (not events)
  uint64_t full_ring_wait_ns = 0;        // producer, lossless mode: time waited for room
  uint64_t full_ring_wait_timeouts = 0;  // producer, lossless mode: waits that ran out
  SessionListingCounts listings;         // source listings shipped, refused, dropped, capped
  SessionTrim trim;                      // store: seen and stored, then trimmed (not drops)
  SessionWindow window;                  // store: the session's own window, if set
};

// Copies what the store keeps of a session (`trim`, `window`) from
// `stored` into `live`, a fresher record of the drain's.
inline void CopyStoreKept(const SessionRecord& stored, SessionRecord* live) {
  live->trim = stored.trim;
  live->window = stored.window;
}

// Adds the loss counters (dropped_*, strings_dropped and names_capped) of
// `from` to `to`.
inline void AddDrops(const SessionRecord& from, SessionRecord* to) {
  to->dropped_ring_full += from.dropped_ring_full;
  to->dropped_no_ring += from.dropped_no_ring;
  to->dropped_shed += from.dropped_shed;
  to->dropped_daemon_restart += from.dropped_daemon_restart;
  to->dropped_invalid += from.dropped_invalid;
  to->strings_dropped += from.strings_dropped;
  to->names_capped += from.names_capped;
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_MODEL_SESSION_RECORD_H_
