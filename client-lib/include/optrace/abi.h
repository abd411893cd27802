// The shared-memory ABI between a traced process (producer) and optraced
// (consumer): layouts and constants only, no behaviour.
//
// A producer owns one segment named "/<namespace>.<uid>.<pid>.<nonce>":
//
//   offset 0             SegmentHeader              kHeaderBytes (one page)
//   rings_offset         RingHeader[ring_count]     128 B each
//   slots_offset         OpEvent[ring_count][ring_capacity]
//   string_entries_off   StringEntry[string_slots]  8 B each
//   string_blob_offset   char[string_blob_bytes]
//   listing_entries_off  ListingEntry[listing_slots]  minor 5, when listing_slots > 0
//   listing_blob_offset  char[listing_blob_bytes]
//   segment_bytes        end of segment (== file size)
//
// All integers are little-endian (the only byte order optrace runs on) and
// all offsets are from the segment start. docs/abi.md specifies the rules a
// consumer must check before trusting any of it; the consumer reads this
// memory as hostile input.
#ifndef OPTRACE_ABI_H_
#define OPTRACE_ABI_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace optrace::abi {

// "OPTRACE" followed by the ABI family byte, read as a little-endian u64.
inline constexpr uint64_t kSegmentMagic = 0x014543415254504fULL;
// "OPTRCTL" followed by the ABI family byte: the daemon's control segment.
inline constexpr uint64_t kControlMagic = 0x014c54435254504fULL;

// Incompatible change: a consumer refuses other majors.
inline constexpr uint16_t kAbiMajor = 1;
// Additive change: fields are only appended, a consumer accepts any minor.
inline constexpr uint16_t kAbiMinor = 5;

inline constexpr uint32_t kEventBytes = 64;
inline constexpr uint32_t kHeaderBytes = 4096;
inline constexpr uint32_t kRingHeaderBytes = 128;
inline constexpr uint32_t kStringEntryBytes = 8;
inline constexpr uint32_t kControlBytes = 4096;
inline constexpr uint32_t kListingEntryBytes = 24;
// header_bytes of minors 0-4: the header a consumer requires at least.
inline constexpr uint32_t kMinHeaderBytes = 1152;

// Limits a consumer enforces on producer-declared geometry.
inline constexpr uint32_t kMaxRings = 256;
inline constexpr uint32_t kMinRingCapacity = 64;
inline constexpr uint32_t kMaxRingCapacity = 1u << 20;
inline constexpr uint32_t kMaxStringSlots = 1u << 20;
inline constexpr uint32_t kMaxStringBlobBytes = 64u << 20;
inline constexpr uint32_t kMaxStringBytes = 4096;
inline constexpr uint32_t kMaxListingSlots = 1u << 16;
inline constexpr uint32_t kMaxListingBlobBytes = 64u << 20;
inline constexpr uint64_t kMinSegmentBytes = kHeaderBytes;
inline constexpr uint64_t kMaxSegmentBytes = 4ULL << 30;

// String id 0 means "none"; id 1 is the reserved "<string table full>".
inline constexpr uint32_t kStringNone = 0;
inline constexpr uint32_t kStringTableFull = 1;
inline constexpr uint32_t kFirstUserString = 2;

// Segment life: written by the producer only.
enum class SegmentState : uint32_t {
  kInitializing = 0,  // header not yet complete: a consumer must not read it
  kReady = 1,         // immutable header complete; rings may hold events
  kClosing = 2,       // process is exiting through exit(); no new events
};

// Producer exit flag: kClean once the process ran its exit handlers.
enum class ExitState : uint32_t { kRunning = 0, kClean = 1 };

// Ring claim state machine: kFree -> kActive (producer CAS, first event of a
// thread), kActive -> kRetired (producer, thread exit), kRetired -> kFree
// (consumer, once drained) or kRetired -> kActive (producer, reuse).
enum class RingState : uint32_t { kFree = 0, kActive = 1, kRetired = 2 };

enum class EventKind : uint8_t {
  kLaunch = 1,    // op begins (enqueued on its target)
  kComplete = 2,  // op finished; arg = device duration in ns when flagged
  kMark = 3,      // instant event
  kCounter = 4,   // arg = counter value (int64 bits)
};
inline constexpr uint8_t kMaxEventKind = 4;

enum class TargetKind : uint8_t { kNone = 0, kCpu = 1, kGpu = 2, kOther = 3 };
inline constexpr uint8_t kMaxTargetKind = 3;

// Levels, least to most verbose. Op events are emitted at kTrace.
enum class LevelValue : uint8_t {
  kOff = 0,
  kError = 1,
  kWarning = 2,
  kInfo = 3,
  kDebug = 4,
  kTrace = 5,
};
inline constexpr uint8_t kMaxLevel = 5;

// Clock domain of OpEvent::ts.
enum class ClockId : uint32_t {
  kTsc = 1,          // x86 invariant TSC ticks; consumer calibrates the rate
  kMonotonicNs = 2,  // CLOCK_MONOTONIC nanoseconds
};

// How a consumer tells that a segment's producer still runs
// (SegmentHeader::liveness, minor 4).
enum class LivenessSignal : uint32_t {
  // Only the pid: the process `pid` exists with `process_start_ticks`.
  // Producers older than minor 4 (their field is reserved, zero).
  kPidOnly = 0,
  // Besides the pid, a shared flock(2) the producer holds on its segment
  // from before `state = kReady` until it exits or execs: the kernel
  // drops it with the process, whatever PID namespace either side is in.
  kSegmentLock = 1,
};

// OpEvent::flags bits. Unknown bits are ignored by consumers.
inline constexpr uint8_t kFlagDropsBefore = 1;     // events were dropped just before this one
inline constexpr uint8_t kFlagDeviceDuration = 2;  // COMPLETE: arg is device-measured ns

// One event: one cache line. No pointers, size_t, bool or plain enums.
struct OpEvent {
  uint64_t ts;            // clock_id domain
  uint64_t op_id;         // unique within the process; 0 only for marks/counters
  uint64_t parent_op_id;  // op open on the emitting thread at LAUNCH; 0 = none
  uint64_t arg;           // device duration (ns) or counter value
  uint32_t name_id;       // string table ids; 0 = none
  uint32_t tag_id;
  uint32_t srcloc_id;
  uint32_t thread_id;  // OS thread id of the emitting thread
  uint32_t stream;     // CUDA stream or queue, 0 = default
  uint16_t device_id;
  uint8_t kind;         // EventKind
  uint8_t level;        // LevelValue
  uint8_t target_kind;  // TargetKind
  uint8_t flags;        // kFlag* bits
  uint16_t reserved;    // always written as 0
  uint32_t stamp;       // low 32 bits of (ring position + 1)
};
static_assert(sizeof(OpEvent) == kEventBytes);
static_assert(alignof(OpEvent) <= 64);
static_assert(offsetof(OpEvent, name_id) == 32);
static_assert(offsetof(OpEvent, kind) == 54);
static_assert(offsetof(OpEvent, stamp) == 60);

// The stamp that a slot at ring position `pos` carries once written.
constexpr uint32_t StampFor(uint64_t pos) { return static_cast<uint32_t>(pos + 1); }

// Per-thread single-producer ring. Producer and consumer fields live on
// separate cache lines so that neither side writes a line the other writes.
struct RingHeader {
  // Producer-owned line.
  alignas(64) std::atomic<uint64_t> write_pos;  // events published, monotonic
  std::atomic<uint64_t> dropped;                // events dropped (ring full), monotonic
  std::atomic<uint32_t> state;                  // RingState
  uint32_t owner_tid;                           // informational only
  uint64_t producer_reserved[5];
  // Consumer-owned line.
  alignas(64) std::atomic<uint64_t> read_pos;  // events consumed, monotonic
  uint64_t consumer_reserved[7];
};
static_assert(sizeof(RingHeader) == kRingHeaderBytes);
static_assert(offsetof(RingHeader, read_pos) == 64);

// One interned string: bytes [offset, offset + length) of the string blob.
struct StringEntry {
  uint32_t offset;
  uint32_t length;
};
static_assert(sizeof(StringEntry) == kStringEntryBytes);

// ListingEntry::flags bits. Unknown bits are ignored by consumers.
inline constexpr uint32_t kListingRegistered =
    1;  // registered by the runtime, not read from a file

// Minor 5: one source listing: bytes [offset, offset + length) of the
// listing blob are lines `first_line`... of the file (or registered name)
// that string `file_id` names, '\n'-separated.
struct ListingEntry {
  uint32_t file_id;     // a published string id
  uint32_t first_line;  // >= 1
  uint32_t offset;
  uint32_t length;
  uint32_t flags;     // kListingRegistered
  uint32_t reserved;  // written 0
};
static_assert(sizeof(ListingEntry) == kListingEntryBytes);

inline constexpr size_t kLabelBytes = 64;
inline constexpr size_t kExecutableBytes = 256;
inline constexpr size_t kCommandLineBytes = 512;

struct SegmentHeader {
  // Immutable part: written once by the producer before state = kReady.
  uint64_t magic;                  // kSegmentMagic
  uint16_t abi_major;              // kAbiMajor
  uint16_t abi_minor;              // kAbiMinor
  uint32_t header_bytes;           // sizeof(SegmentHeader) as built by the producer
  uint32_t event_bytes;            // sizeof(OpEvent)
  uint32_t ring_header_bytes;      // sizeof(RingHeader)
  uint64_t segment_bytes;          // total size, == file size
  uint32_t ring_count;             // <= kMaxRings
  uint32_t ring_capacity;          // events per ring, a power of two
  uint64_t rings_offset;           // RingHeader[ring_count]
  uint64_t slots_offset;           // OpEvent[ring_count * ring_capacity]
  uint64_t string_entries_offset;  // StringEntry[string_slots]
  uint64_t string_blob_offset;     // char[string_blob_bytes]
  uint32_t string_slots;
  uint32_t string_blob_bytes;
  uint32_t pid;
  uint32_t uid;
  uint64_t process_start_ticks;          // /proc/<pid>/stat field 22, against pid reuse
  uint64_t nonce;                        // equals the nonce in the segment name
  uint32_t clock_id;                     // ClockId of OpEvent::ts
  uint32_t liveness;                     // minor 4: LivenessSignal (0, pid only, in older segments)
  uint64_t clock_ticks_per_sec;          // 0: the consumer calibrates the rate itself
  uint64_t created_ts;                   // clock_id domain, at creation
  uint64_t created_monotonic_ns;         // CLOCK_MONOTONIC at the same instant
  uint64_t created_realtime_ns;          // CLOCK_REALTIME at the same instant
  char session_label[kLabelBytes];       // OPTRACE_SESSION, NUL-padded
  char executable[kExecutableBytes];     // /proc/self/exe, NUL-padded
  char command_line[kCommandLineBytes];  // argv, NUL-separated, truncated
  std::atomic<uint32_t> state;           // SegmentState; written last, with release
  uint32_t reserved1;

  // Consumer-owned control line: the producer only reads these once a
  // consumer has attached (daemon_pid != 0).
  alignas(64) std::atomic<uint32_t> level;    // live level word (LevelValue)
  std::atomic<uint32_t> level_generation;     // bumped on each change
  std::atomic<uint64_t> daemon_heartbeat_ns;  // CLOCK_MONOTONIC, refreshed by the daemon
  std::atomic<uint32_t> daemon_pid;           // attached daemon, 0 = none
  // Minor 1: 0 until the daemon has attached and written the level word,
  // then kAttached. A futex word: the producer's start-up handshake waits
  // on it, the daemon wakes it once.
  std::atomic<uint32_t> attach_word;
  uint32_t control_reserved[10];

  // Producer-owned line.
  alignas(64) std::atomic<uint32_t> string_count;  // published string entries
  std::atomic<uint32_t> rings_claimed;             // rings ever claimed (informational)
  std::atomic<uint64_t> events_dropped_no_ring;    // threads beyond ring_count
  std::atomic<uint64_t> strings_dropped;           // string table full
  std::atomic<uint32_t> requested_level;           // what the process asks for (env, SetLevel)
  std::atomic<uint32_t> requested_generation;      // bumped on each in-process SetLevel
  std::atomic<uint32_t> exit_state;                // ExitState
  uint32_t producer_reserved0;
  // Minor 2: names and tags an instrumentation layer (NVTX, CUPTI, the
  // PyTorch tracer) replaced by a generic one because its cap was reached
  // (optrace_count_names_capped). Monotonic; 0 in a segment of an older
  // producer (reserved bytes are zero).
  std::atomic<uint64_t> names_capped;
  // Minor 3: lossless mode (OPTRACE_FULL_RING=wait). The nanoseconds
  // producer threads waited for room in a full ring, and the waits that
  // ended at their timeout (that event was then dropped, and counted in its
  // ring's `dropped`). Monotonic; 0 in a segment of an older producer.
  std::atomic<uint64_t> full_ring_wait_ns;
  std::atomic<uint64_t> full_ring_wait_timeouts;

  // Minor 5: source listings. The area's geometry is immutable (written
  // before state = kReady); listing_slots = 0 means no area (listings off,
  // or an older producer: its header ends at kMinHeaderBytes).
  uint64_t listing_entries_offset;  // ListingEntry[listing_slots]
  uint64_t listing_blob_offset;     // char[listing_blob_bytes]
  uint32_t listing_slots;
  uint32_t listing_blob_bytes;
  // Producer-owned: published entries (release, after their bytes), the
  // locations whose file the producer could not read, and the listings
  // that found the area full. Monotonic.
  std::atomic<uint32_t> listing_count;
  uint32_t producer_reserved1;
  std::atomic<uint64_t> listings_refused;
  std::atomic<uint64_t> listings_dropped;
};
static_assert(offsetof(SegmentHeader, liveness) == 108);
static_assert(offsetof(SegmentHeader, state) == 976);
static_assert(offsetof(SegmentHeader, level) == 1024);
static_assert(offsetof(SegmentHeader, attach_word) == 1044);
static_assert(offsetof(SegmentHeader, string_count) == 1088);
static_assert(offsetof(SegmentHeader, names_capped) == 1128);
static_assert(offsetof(SegmentHeader, full_ring_wait_ns) == 1136);
static_assert(offsetof(SegmentHeader, listing_entries_offset) == kMinHeaderBytes);
static_assert(offsetof(SegmentHeader, listing_count) == 1176);
static_assert(sizeof(SegmentHeader) == 1216);  // 1200, padded to the producer line's alignment
static_assert(sizeof(SegmentHeader) <= kHeaderBytes);

// The daemon's read-only control segment "/<namespace>.control.<uid>": lets
// a producer start at the level live tails ask for before any daemon has
// attached to it. Written only by the daemon; producers map it read-only.
struct ControlBlock {
  uint64_t magic;          // kControlMagic
  uint16_t abi_major;      // kAbiMajor
  uint16_t abi_minor;      // kAbiMinor
  uint32_t control_bytes;  // sizeof(ControlBlock)
  uint32_t daemon_pid;
  uint32_t daemon_uid;
  std::atomic<uint32_t> default_level;     // LevelValue a new producer starts at
  std::atomic<uint32_t> level_generation;  // bumped on each change
  std::atomic<uint64_t> heartbeat_ns;      // CLOCK_MONOTONIC
  // Minor 1 (control_bytes >= 48): the drain thread's sleep. drain_sleeping
  // is 1 while the drain thread waits for work; a producer whose ring crosses
  // its fill watermark then wakes the futex `wake_word` (FUTEX_WAKE works
  // on the producer's read-only mapping). Producers never write either.
  std::atomic<uint32_t> drain_sleeping;
  std::atomic<uint32_t> wake_word;  // 0 while the daemon runs, 1 to stop its waiter
};
static_assert(sizeof(ControlBlock) == 48);
static_assert(offsetof(ControlBlock, drain_sleeping) == 40);
// Control blocks of minor 0 end before the wake fields.
inline constexpr uint32_t kControlBytesWithWake = 48;

// SegmentHeader::attach_word once the daemon has attached.
inline constexpr uint32_t kAttached = 1;

static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<uint64_t>) == 8);
static_assert(sizeof(std::atomic<uint32_t>) == 4);

}  // namespace optrace::abi

#endif  // OPTRACE_ABI_H_
