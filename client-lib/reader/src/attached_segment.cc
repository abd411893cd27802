#include "optrace/reader/attached_segment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <utility>

#include "common/process_info.h"
#include "common/producer_lock.h"
#include "common/shared_futex.h"
#include "optrace/reader/shm_fault_guard.h"
#include "optrace/reader/text_sanitizer.h"

namespace optrace::reader {
namespace bip = boost::interprocess;

struct AttachedSegment::Mapping {
  explicit Mapping(bip::mapped_region r) : region(std::move(r)) {}
  ~Mapping() {
    if (lock_fd >= 0) ::close(lock_fd);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  bip::mapped_region region;
  int lock_fd = -1;  // our own descriptor of the segment, to probe the liveness lock
};

namespace {

std::string Num(uint64_t v) { return std::to_string(v); }

struct Region {
  const char* what;
  uint64_t offset;
  uint64_t bytes;
};

// Copies the header into private memory with one guarded read. The header
// holds std::atomic members; a byte copy into a local object is how we take
// a snapshot without trusting the producer to keep it stable.
bool SnapshotHeader(const char* base, size_t bytes, abi::SegmentHeader* out) {
  return GuardedCopy(base, bytes, static_cast<void*>(out), base, sizeof(abi::SegmentHeader));
}

std::string NulSeparatedToSpaces(const char* data, size_t bytes) {
  std::string s(data, bytes);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  std::replace(s.begin(), s.end(), '\0', ' ');
  return SanitizeText(s);
}

}  // namespace

Status ValidateGeometry(const abi::SegmentHeader& h, uint64_t segment_bytes,
                        const std::string& name) {
  if (h.ring_count == 0 || h.ring_count > abi::kMaxRings) {
    return Status::InvalidSegment(
        name, "ring_count " + Num(h.ring_count) + " is not in [1, " + Num(abi::kMaxRings) + "]");
  }
  const uint32_t cap = h.ring_capacity;
  if (cap < abi::kMinRingCapacity || cap > abi::kMaxRingCapacity || (cap & (cap - 1)) != 0) {
    return Status::InvalidSegment(
        name, "ring_capacity " + Num(cap) + " is not a power of two in [" +
                  Num(abi::kMinRingCapacity) + ", " + Num(abi::kMaxRingCapacity) + "]");
  }
  if (h.string_slots < abi::kFirstUserString || h.string_slots > abi::kMaxStringSlots) {
    return Status::InvalidSegment(name, "string_slots " + Num(h.string_slots) + " is not in [" +
                                            Num(abi::kFirstUserString) + ", " +
                                            Num(abi::kMaxStringSlots) + "]");
  }
  if (h.string_blob_bytes > abi::kMaxStringBlobBytes) {
    return Status::InvalidSegment(name, "string_blob_bytes " + Num(h.string_blob_bytes) +
                                            " exceeds " + Num(abi::kMaxStringBlobBytes));
  }
  // Sizes: all factors are bounded above, but check anyway.
  uint64_t ring_bytes = 0, slot_bytes = 0, entry_bytes = 0;
  if (__builtin_mul_overflow(uint64_t{h.ring_count}, uint64_t{abi::kRingHeaderBytes},
                             &ring_bytes) ||
      __builtin_mul_overflow(uint64_t{h.ring_count} * cap, uint64_t{abi::kEventBytes},
                             &slot_bytes) ||
      __builtin_mul_overflow(uint64_t{h.string_slots}, uint64_t{abi::kStringEntryBytes},
                             &entry_bytes)) {
    return Status::InvalidSegment(name, "region sizes overflow");
  }
  std::vector<Region> regions = {
      {"header", 0, h.header_bytes},
      {"rings", h.rings_offset, ring_bytes},
      {"slots", h.slots_offset, slot_bytes},
      {"string entries", h.string_entries_offset, entry_bytes},
      {"string blob", h.string_blob_offset, h.string_blob_bytes},
  };
  if (h.listing_slots > 0) {
    if (h.listing_slots > abi::kMaxListingSlots ||
        h.listing_blob_bytes > abi::kMaxListingBlobBytes) {
      return Status::InvalidSegment(
          name, "listing_slots " + Num(h.listing_slots) + " or listing_blob_bytes " +
                    Num(h.listing_blob_bytes) + " exceeds " + Num(abi::kMaxListingSlots) + " or " +
                    Num(abi::kMaxListingBlobBytes));
    }
    regions.push_back({"listing entries", h.listing_entries_offset,
                       uint64_t{h.listing_slots} * abi::kListingEntryBytes});
    regions.push_back({"listing blob", h.listing_blob_offset, h.listing_blob_bytes});
  }
  for (const Region& r : regions) {
    uint64_t end = 0;
    if (__builtin_add_overflow(r.offset, r.bytes, &end) || end > segment_bytes) {
      return Status::InvalidSegment(name, std::string(r.what) + " region [" + Num(r.offset) +
                                              ", +" + Num(r.bytes) + ") lies outside the " +
                                              Num(segment_bytes) + "-byte segment");
    }
    if (r.offset % 64 != 0) {
      return Status::InvalidSegment(
          name, std::string(r.what) + " offset " + Num(r.offset) + " is not 64-byte aligned");
    }
  }
  std::sort(regions.begin(), regions.end(),
            [](const Region& a, const Region& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < regions.size(); ++i) {
    if (regions[i - 1].offset + regions[i - 1].bytes > regions[i].offset) {
      return Status::InvalidSegment(
          name, std::string(regions[i - 1].what) + " and " + regions[i].what + " regions overlap");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<AttachedSegment>> AttachedSegment::Attach(const std::string& shm_name,
                                                                 const AttachPolicy& policy) {
  InstallShmFaultHandler();
  const auto parsed = SegmentName::Parse(shm_name);
  if (!parsed) return Status::InvalidArgument("'" + shm_name + "' is not a segment name");
  if (parsed->ns != policy.ns) {
    return Status::InvalidArgument("segment " + shm_name + " is not in namespace " + policy.ns);
  }
  const uint32_t my_uid = static_cast<uint32_t>(::getuid());
  const bool uid_allowed = policy.any_uid || parsed->uid == my_uid ||
                           std::find(policy.allowed_uids.begin(), policy.allowed_uids.end(),
                                     parsed->uid) != policy.allowed_uids.end();
  if (!uid_allowed) {
    return Status::PermissionDenied("segment " + shm_name + " belongs to uid " + Num(parsed->uid) +
                                    ", which this daemon does not serve");
  }

  std::unique_ptr<Mapping> mapping;
  uint64_t size = 0;
  try {
    bip::shared_memory_object shm(bip::open_only, shm_name.c_str(), bip::read_write);
    struct stat st {};
    if (::fstat(shm.get_mapping_handle().handle, &st) != 0) {
      return Status::IoError("fstat of segment " + shm_name + ": " + std::strerror(errno));
    }
    // Rule 1: the file's owner is the uid in its name, and nobody else may
    // write it.
    if (!S_ISREG(st.st_mode)) return Status::InvalidSegment(shm_name, "is not a regular file");
    if (st.st_uid != parsed->uid) {
      return Status::PermissionDenied("segment " + shm_name + " is owned by uid " + Num(st.st_uid) +
                                      ", not the uid " + Num(parsed->uid) + " in its name");
    }
    if ((st.st_mode & 022) != 0 && !policy.allow_group_writable) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return Status::PermissionDenied("segment " + shm_name + " has mode " + mode +
                                      ", writable by group or others");
    }
    // Rule 2: a plausible size; we map exactly this many bytes.
    size = static_cast<uint64_t>(st.st_size);
    if (size < std::max<uint64_t>(abi::kMinSegmentBytes, sizeof(abi::SegmentHeader))) {
      // Found between shm_open and truncate: the producer is still sizing it.
      return Status::NotReady("segment " + shm_name + " is still being sized (" + Num(size) +
                              " bytes)");
    }
    if (size > abi::kMaxSegmentBytes) {
      return Status::InvalidSegment(shm_name, "size " + Num(size) + " is not in [" +
                                                  Num(abi::kMinSegmentBytes) + ", " +
                                                  Num(abi::kMaxSegmentBytes) + "]");
    }
    mapping = std::make_unique<Mapping>(
        bip::mapped_region(shm, bip::read_write, 0, static_cast<size_t>(size)));
    // Kept only for a producer that holds the liveness lock (read below).
    mapping->lock_fd = ::fcntl(shm.get_mapping_handle().handle, F_DUPFD_CLOEXEC, 0);
  } catch (const bip::interprocess_exception& e) {
    if (e.get_error_code() == bip::not_found_error) {
      return Status::NotFound("segment " + shm_name + " no longer exists");
    }
    return Status::IoError("cannot open segment " + shm_name + ": " + e.what());
  } catch (const std::exception& e) {
    return Status::IoError("cannot map segment " + shm_name + ": " + e.what());
  }

  const char* base = static_cast<const char*>(mapping->region.get_address());
  // Rule 4 first: only a ready header is complete. Acquire pairs with the
  // producer's release store of state after it filled the header.
  uint32_t state = 0;
  const auto* header = reinterpret_cast<const abi::SegmentHeader*>(base);
  if (!Guarded(base, size, [&] { state = header->state.load(std::memory_order_acquire); })) {
    return Status::InvalidSegment(shm_name, "faulted while reading the header");
  }
  if (state == static_cast<uint32_t>(abi::SegmentState::kInitializing)) {
    return Status::NotReady("segment " + shm_name + " is still initialising");
  }
  if (state != static_cast<uint32_t>(abi::SegmentState::kReady) &&
      state != static_cast<uint32_t>(abi::SegmentState::kClosing)) {
    return Status::InvalidSegment(shm_name, "state " + Num(state) + " is not a known state");
  }

  abi::SegmentHeader h;
  if (!SnapshotHeader(base, size, &h)) {
    return Status::InvalidSegment(shm_name, "faulted while reading the header");
  }
  // Rule 3: identity and sizes of this ABI.
  if (h.magic != abi::kSegmentMagic) {
    char magic[24];
    std::snprintf(magic, sizeof magic, "0x%016llx", static_cast<unsigned long long>(h.magic));
    return Status::InvalidSegment(shm_name, std::string("magic ") + magic + " is not optrace's");
  }
  if (h.abi_major != abi::kAbiMajor) {
    return Status::InvalidSegment(shm_name, "ABI major " + Num(h.abi_major) +
                                                " is not supported (this reader speaks " +
                                                Num(abi::kAbiMajor) + ")");
  }
  if (h.header_bytes < abi::kMinHeaderBytes || h.header_bytes > size) {
    return Status::InvalidSegment(shm_name, "header_bytes " + Num(h.header_bytes) + " is not in [" +
                                                Num(abi::kMinHeaderBytes) + ", " + Num(size) + "]");
  }
  if (h.abi_minor < 5 || h.header_bytes < sizeof(abi::SegmentHeader)) {
    h.listing_slots = 0;  // a header of an older minor has no listing area
  }
  if (h.listing_slots == 0) {
    h.listing_entries_offset = h.listing_blob_offset = 0;
    h.listing_blob_bytes = 0;
  }
  if (h.event_bytes != abi::kEventBytes) {
    return Status::InvalidSegment(shm_name, "event_bytes " + Num(h.event_bytes) + " is not 64");
  }
  if (h.ring_header_bytes != abi::kRingHeaderBytes) {
    return Status::InvalidSegment(shm_name,
                                  "ring_header_bytes " + Num(h.ring_header_bytes) + " is not 128");
  }
  if (h.segment_bytes != size) {
    return Status::InvalidSegment(shm_name, "segment_bytes " + Num(h.segment_bytes) +
                                                " differs from the file size " + Num(size));
  }
  // Rule 5: the header names the same process as the file name.
  if (h.pid != parsed->pid || h.uid != parsed->uid || h.nonce != parsed->nonce) {
    return Status::InvalidSegment(shm_name, "pid/uid/nonce in the header (" + Num(h.pid) + "/" +
                                                Num(h.uid) + "/" + Num(h.nonce) +
                                                ") do not match the name");
  }
  if (h.clock_id != static_cast<uint32_t>(abi::ClockId::kTsc) &&
      h.clock_id != static_cast<uint32_t>(abi::ClockId::kMonotonicNs)) {
    return Status::InvalidSegment(shm_name, "clock_id " + Num(h.clock_id) + " is unknown");
  }
  // Rule 6.
  if (Status s = ValidateGeometry(h, size, shm_name); !s.ok()) return s;

  SegmentGeometry g;
  g.name = *parsed;
  g.segment_bytes = size;
  g.ring_count = h.ring_count;
  g.ring_capacity = h.ring_capacity;
  g.rings_offset = h.rings_offset;
  g.slots_offset = h.slots_offset;
  g.string_entries_offset = h.string_entries_offset;
  g.string_blob_offset = h.string_blob_offset;
  g.string_slots = h.string_slots;
  g.string_blob_bytes = h.string_blob_bytes;
  g.listing_entries_offset = h.listing_entries_offset;
  g.listing_blob_offset = h.listing_blob_offset;
  g.listing_slots = h.listing_slots;
  g.listing_blob_bytes = h.listing_blob_bytes;
  g.abi_minor = h.abi_minor;
  g.process_start_ticks = h.process_start_ticks;
  g.clock_id = static_cast<abi::ClockId>(h.clock_id);
  // Unknown values are read as the oldest signal: the pid only.
  g.liveness = h.liveness == static_cast<uint32_t>(abi::LivenessSignal::kSegmentLock)
                   ? abi::LivenessSignal::kSegmentLock
                   : abi::LivenessSignal::kPidOnly;
  if (g.liveness != abi::LivenessSignal::kSegmentLock && mapping->lock_fd >= 0) {
    ::close(mapping->lock_fd);
    mapping->lock_fd = -1;
  }
  g.clock_ticks_per_sec = h.clock_ticks_per_sec;
  g.created_ts = h.created_ts;
  g.created_monotonic_ns = h.created_monotonic_ns;
  g.created_realtime_ns = h.created_realtime_ns;
  g.session_label = SanitizeText(std::string_view(h.session_label, sizeof h.session_label), true);
  g.executable = SanitizeText(std::string_view(h.executable, sizeof h.executable), true);
  g.command_line = NulSeparatedToSpaces(h.command_line, sizeof h.command_line);
  g.pid_verified = PidRunsAsRecorded(g);
  return std::unique_ptr<AttachedSegment>(
      new AttachedSegment(shm_name, std::move(mapping), std::move(g)));
}

AttachedSegment::AttachedSegment(std::string shm_name, std::unique_ptr<Mapping> mapping,
                                 SegmentGeometry geometry)
    : shm_name_(std::move(shm_name)),
      mapping_(std::move(mapping)),
      base_(static_cast<char*>(mapping_->region.get_address())),
      bytes_(mapping_->region.get_size()),
      geometry_(std::move(geometry)) {}

AttachedSegment::~AttachedSegment() = default;

std::optional<ProducerFields> AttachedSegment::ReadProducerFields() const {
  const auto* h = reinterpret_cast<const abi::SegmentHeader*>(base_);
  ProducerFields f;
  uint32_t state = 0, exit_state = 0;
  const bool ok = Guarded(base_, bytes_, [&] {
    // Acquire pairs with the producer's release stores of listing_count,
    // string_count, state and exit_state: what they publish is visible
    // after. listing_count first: the file name of every listing it counts
    // was published before it, so the string_count read next covers it.
    // (Zero in the reserved bytes of an older producer's header page.)
    f.listing_count = h->listing_count.load(std::memory_order_acquire);
    f.string_count = h->string_count.load(std::memory_order_acquire);
    state = h->state.load(std::memory_order_acquire);
    exit_state = h->exit_state.load(std::memory_order_acquire);
    f.events_dropped_no_ring = h->events_dropped_no_ring.load(std::memory_order_relaxed);
    f.strings_dropped = h->strings_dropped.load(std::memory_order_relaxed);
    f.names_capped = h->names_capped.load(std::memory_order_relaxed);
    f.full_ring_wait_ns = h->full_ring_wait_ns.load(std::memory_order_relaxed);
    f.full_ring_wait_timeouts = h->full_ring_wait_timeouts.load(std::memory_order_relaxed);
    f.requested_generation = h->requested_generation.load(std::memory_order_acquire);
    f.requested_level = h->requested_level.load(std::memory_order_relaxed);
    f.listings_refused = h->listings_refused.load(std::memory_order_relaxed);
    f.listings_dropped = h->listings_dropped.load(std::memory_order_relaxed);
  });
  if (!ok) return std::nullopt;
  f.string_count = std::min(f.string_count, geometry_.string_slots);
  f.listing_count = std::min(f.listing_count, geometry_.listing_slots);
  f.requested_level = std::min<uint32_t>(f.requested_level, abi::kMaxLevel);
  f.state = state <= 2 ? static_cast<abi::SegmentState>(state) : abi::SegmentState::kReady;
  f.exit_state = exit_state == static_cast<uint32_t>(abi::ExitState::kClean)
                     ? abi::ExitState::kClean
                     : abi::ExitState::kRunning;
  return f;
}

bool PidRunsAsRecorded(const SegmentGeometry& geometry) {
  const auto pid = static_cast<pid_t>(geometry.name.pid);
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const auto ticks = ProcessStartTicks(pid);
  if (!ticks) return false;
  // A producer that could not read its own start time wrote 0: trust the pid.
  if (geometry.process_start_ticks != 0 && *ticks != geometry.process_start_ticks) {
    return false;  // the pid was reused, or names another process in our PID namespace
  }
  // A live process of another user is not the producer of a segment that
  // this uid owns (rule 1), whatever its header claims.
  return ProcessRealUid(pid) == geometry.name.uid;
}

ProducerLiveness AttachedSegment::CheckLiveness() const {
  if (mapping_->lock_fd >= 0) {
    switch (ProbeProducerLock(mapping_->lock_fd)) {
      case ProducerLockState::kHeld:
        return ProducerLiveness::kAlive;
      case ProducerLockState::kFree:
        // A verified producer may have closed every descriptor (a program
        // that closes all its files, or exec): its pid still answers.
        if (!geometry_.pid_verified) return ProducerLiveness::kGone;
        break;
      case ProducerLockState::kUnknown:
        break;
    }
  }
  return PidRunsAsRecorded(geometry_) ? ProducerLiveness::kAlive : ProducerLiveness::kGone;
}

bool AttachedSegment::WriteLevel(abi::LevelValue level) {
  auto* h = reinterpret_cast<abi::SegmentHeader*>(base_);
  return Guarded(base_, bytes_, [&] {
    h->level.store(static_cast<uint32_t>(level), std::memory_order_relaxed);
    // Release: a reader that sees the new generation sees the level.
    h->level_generation.fetch_add(1, std::memory_order_release);
  });
}

bool AttachedSegment::WriteDaemonPresence(uint32_t daemon_pid, uint64_t heartbeat_ns) {
  auto* h = reinterpret_cast<abi::SegmentHeader*>(base_);
  return Guarded(base_, bytes_, [&] {
    h->daemon_heartbeat_ns.store(heartbeat_ns, std::memory_order_relaxed);
    h->daemon_pid.store(daemon_pid, std::memory_order_release);
  });
}

bool AttachedSegment::SignalAttached() {
  auto* h = reinterpret_cast<abi::SegmentHeader*>(base_);
  // Release: the level word and daemon_pid written before are visible to a
  // producer that acquires attach_word. Pairs with AwaitDaemonAttach.
  if (!Guarded(base_, bytes_,
               [&] { h->attach_word.store(abi::kAttached, std::memory_order_release); })) {
    return false;
  }
  // A word outside the mapping cannot happen here (the header is inside);
  // the wake is harmless when nobody waits.
  SharedFutexWake(&h->attach_word, INT32_MAX);
  return true;
}

std::optional<uint32_t> AttachedSegment::ReadLevelWord() const {
  const auto* h = reinterpret_cast<const abi::SegmentHeader*>(base_);
  uint32_t value = 0;
  if (!Guarded(base_, bytes_, [&] { value = h->level.load(std::memory_order_relaxed); })) {
    return std::nullopt;
  }
  return value;
}

void AttachedSegment::Unlink() { bip::shared_memory_object::remove(shm_name_.c_str()); }

}  // namespace optrace::reader
