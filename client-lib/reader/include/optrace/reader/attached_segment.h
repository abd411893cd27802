// A producer's segment, opened by a consumer that trusts none of its bytes.
#ifndef OPTRACE_READER_ATTACHED_SEGMENT_H_
#define OPTRACE_READER_ATTACHED_SEGMENT_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/segment_name.h"
#include "common/status.h"
#include "optrace/abi.h"

namespace optrace::reader {

// Which segments a consumer accepts.
struct AttachPolicy {
  std::string ns = "optrace";          // only this namespace
  bool any_uid = false;                // root daemons: serve every uid
  std::vector<uint32_t> allowed_uids;  // besides our own uid
  bool allow_group_writable = false;   // mode with group/other write bits
};

// The consumer's private copy of a validated header: after Attach, the
// geometry is never re-read from shared memory.
struct SegmentGeometry {
  SegmentName name;
  uint64_t segment_bytes = 0;
  uint32_t ring_count = 0;
  uint32_t ring_capacity = 0;
  uint64_t rings_offset = 0;
  uint64_t slots_offset = 0;
  uint64_t string_entries_offset = 0;
  uint64_t string_blob_offset = 0;
  uint32_t string_slots = 0;
  uint32_t string_blob_bytes = 0;
  // Minor 5's listing area; listing_slots = 0: none (older producer, or
  // listings off).
  uint64_t listing_entries_offset = 0;
  uint64_t listing_blob_offset = 0;
  uint32_t listing_slots = 0;
  uint32_t listing_blob_bytes = 0;
  uint16_t abi_minor = 0;
  uint64_t process_start_ticks = 0;
  abi::ClockId clock_id = abi::ClockId::kMonotonicNs;
  abi::LivenessSignal liveness = abi::LivenessSignal::kPidOnly;
  // At attach: the header's pid runs in this PID namespace, started at
  // `process_start_ticks` and owned by the segment's uid. False for a
  // producer in another PID namespace (a container) or one that claims
  // another process's pid: its pid is only what it says of itself.
  bool pid_verified = false;
  uint64_t clock_ticks_per_sec = 0;
  uint64_t created_ts = 0;
  uint64_t created_monotonic_ns = 0;
  uint64_t created_realtime_ns = 0;
  std::string session_label;  // sanitized
  std::string executable;     // sanitized
  std::string command_line;   // sanitized, arguments separated by spaces
};

// Mutable producer-owned fields, read (and only read) in one guarded pass.
struct ProducerFields {
  abi::SegmentState state = abi::SegmentState::kInitializing;
  abi::ExitState exit_state = abi::ExitState::kRunning;
  uint32_t string_count = 0;  // clamped to string_slots
  uint64_t events_dropped_no_ring = 0;
  uint64_t strings_dropped = 0;
  uint64_t names_capped = 0;             // 0 from a producer older than minor 2
  uint64_t full_ring_wait_ns = 0;        // 0 from a producer older than minor 3
  uint64_t full_ring_wait_timeouts = 0;  // 0 from a producer older than minor 3
  uint32_t listing_count = 0;            // clamped to listing_slots; 0 before minor 5
  uint64_t listings_refused = 0;         // 0 from a producer older than minor 5
  uint64_t listings_dropped = 0;         // 0 from a producer older than minor 5
  uint32_t requested_level = 0;          // clamped to kMaxLevel
  uint32_t requested_generation = 0;
};

// Whether the process that owns a segment still runs.
enum class ProducerLiveness { kAlive, kGone };

// An attached segment: maps exactly the file's size, read-write (the
// consumer writes read positions, the level word and ring kRetired->kFree,
// nothing else). Move-only RAII; never removes the shm object by itself.
// Thread rules: one thread drains it; control writes (level, heartbeat) are
// atomic stores and may come from another thread.
class AttachedSegment {
 public:
  // Opens shm object `shm_name` (no leading '/') and validates it against
  // the ABI rules 1-6 of docs/abi.md. Errors: kNotFound (gone), kNotReady
  // (still initialising: retry later), kPermissionDenied (owner/mode),
  // kInvalidSegment (any broken rule, named with its value).
  static Result<std::unique_ptr<AttachedSegment>> Attach(const std::string& shm_name,
                                                         const AttachPolicy& policy);
  ~AttachedSegment();
  AttachedSegment(const AttachedSegment&) = delete;
  AttachedSegment& operator=(const AttachedSegment&) = delete;

  const SegmentGeometry& geometry() const { return geometry_; }
  const std::string& shm_name() const { return shm_name_; }

  // Base and size of the mapping, for guarded reads.
  const char* base() const { return base_; }
  size_t bytes() const { return bytes_; }

  // Guarded read of the producer-owned fields; nullopt after a fault.
  std::optional<ProducerFields> ReadProducerFields() const;

  // Whether the producer still runs. A producer holding the liveness lock
  // (ABI minor 4) is alive while the lock is held, wherever its pid means
  // something; without the lock, or once a verified producer's lock is
  // free, PidRunsAsRecorded decides (pid reuse means the producer is gone).
  ProducerLiveness CheckLiveness() const;

  // Consumer-owned writes. Return false if the store faulted.
  bool WriteLevel(abi::LevelValue level);
  bool WriteDaemonPresence(uint32_t daemon_pid, uint64_t heartbeat_ns);
  // Ends the producer's start-up handshake: stores attach_word = kAttached
  // (after the level and presence writes, which it publishes) and wakes the
  // producer's wait on it. Call once, after WriteDaemonPresence and the
  // first WriteLevel.
  bool SignalAttached();
  // The live level word as the segment holds it now (for tamper checks).
  std::optional<uint32_t> ReadLevelWord() const;

  // Removes the shm object name. The mapping stays valid.
  void Unlink();

 private:
  struct Mapping;
  AttachedSegment(std::string shm_name, std::unique_ptr<Mapping> mapping, SegmentGeometry geometry);
  std::string shm_name_;
  std::unique_ptr<Mapping> mapping_;
  char* base_;
  size_t bytes_;
  SegmentGeometry geometry_;
};

// Whether the header's pid runs in this PID namespace as the producer
// that made `geometry`: it exists, started at `process_start_ticks` (0:
// not checked) and its real uid is the segment's.
bool PidRunsAsRecorded(const SegmentGeometry& geometry);

// Validates the geometry fields of a header snapshot against a segment of
// `segment_bytes` bytes (rule 6): limits, power-of-two capacity, and every
// region inside the segment, 64-byte aligned and disjoint from the others,
// with overflow-checked arithmetic. Exposed for tests and fuzzers.
Status ValidateGeometry(const abi::SegmentHeader& snapshot, uint64_t segment_bytes,
                        const std::string& shm_name);

}  // namespace optrace::reader

#endif  // OPTRACE_READER_ATTACHED_SEGMENT_H_
