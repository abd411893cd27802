#include "producer_segment.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <cerrno>
#include <cstring>
#include <exception>

#include "common/clock_now.h"
#include "common/process_info.h"
#include "common/producer_lock.h"
#include "common/segment_name.h"
#include "optrace/detail/fast_path.h"

namespace optrace::client {
namespace bip = boost::interprocess;

struct ProducerSegment::Mapping {
  bip::mapped_region region;
};

namespace {

constexpr uint64_t kPage = 4096;

constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t RandomNonce() {
  uint64_t nonce = 0;
  if (::getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    nonce = static_cast<uint64_t>(ts.tv_nsec) * 0x9E3779B97F4A7C15ULL ^
            static_cast<uint64_t>(::getpid()) << 32;
  }
  return nonce;
}

void CopyPadded(char* dst, size_t dst_bytes, const std::string& src) {
  std::memset(dst, 0, dst_bytes);
  std::memcpy(dst, src.data(), std::min(src.size(), dst_bytes - 1));
}

// The canonical layout for `o`; every region starts 64-byte aligned.
struct Layout {
  uint64_t rings_offset, slots_offset, string_entries_offset, string_blob_offset,
      listing_entries_offset, listing_blob_offset, segment_bytes;
};

Layout ComputeLayout(const ProducerOptions& o) {
  Layout l{};
  l.rings_offset = abi::kHeaderBytes;
  l.slots_offset = AlignUp(l.rings_offset + uint64_t{o.ring_count} * abi::kRingHeaderBytes, kPage);
  l.string_entries_offset =
      l.slots_offset + uint64_t{o.ring_count} * o.ring_capacity * abi::kEventBytes;
  l.string_blob_offset =
      AlignUp(l.string_entries_offset + uint64_t{o.string_slots} * abi::kStringEntryBytes, 64);
  l.listing_entries_offset = AlignUp(l.string_blob_offset + o.string_blob_bytes, 64);
  l.listing_blob_offset = AlignUp(
      l.listing_entries_offset + uint64_t{o.listing_slots_in_segment()} * abi::kListingEntryBytes,
      64);
  l.segment_bytes = AlignUp(l.listing_blob_offset + o.listing_blob_in_segment(), kPage);
  if (o.listing_slots_in_segment() == 0) l.listing_entries_offset = l.listing_blob_offset = 0;
  return l;
}

}  // namespace

std::unique_ptr<ProducerSegment> ProducerSegment::Create(const ProducerOptions& options,
                                                         abi::LevelValue requested_level,
                                                         abi::LevelValue initial_level,
                                                         std::string* error) {
  const pid_t pid = ::getpid();
  SegmentName seg_name{options.ns, static_cast<uint32_t>(::getuid()), static_cast<uint32_t>(pid),
                       RandomNonce()};
  const std::string name = seg_name.Format();
  const Layout layout = ComputeLayout(options);
  std::unique_ptr<Mapping> mapping;
  int lock_fd = -1;
  try {
    bip::shared_memory_object shm(bip::create_only, name.c_str(), bip::read_write,
                                  bip::permissions(0600));
    const int fd = shm.get_mapping_handle().handle;
    // shm_open applies the umask; fchmod makes the mode exactly 0600.
    ::fchmod(fd, 0600);
    // The liveness lock, before anything a consumer may act on: held
    // through a descriptor of our own, which outlives `shm`'s.
    lock_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (lock_fd >= 0 && !TakeProducerLock(lock_fd)) {
      ::close(lock_fd);
      lock_fd = -1;
    }
    shm.truncate(static_cast<bip::offset_t>(layout.segment_bytes));
    // Reserve the pages now: on a full /dev/shm this fails here instead of
    // raising SIGBUS in the traced runtime later.
    const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(layout.segment_bytes));
    if (rc != 0) {
      if (lock_fd >= 0) ::close(lock_fd);
      bip::shared_memory_object::remove(name.c_str());
      *error = "cannot reserve " + std::to_string(layout.segment_bytes) + " bytes for segment " +
               name + ": " + std::strerror(rc);
      return nullptr;
    }
    mapping = std::make_unique<Mapping>(Mapping{bip::mapped_region(shm, bip::read_write)});
  } catch (const std::exception& e) {
    if (lock_fd >= 0) ::close(lock_fd);
    bip::shared_memory_object::remove(name.c_str());
    *error = "cannot create segment " + name + ": " + e.what();
    return nullptr;
  }

  std::unique_ptr<ProducerSegment> seg(new ProducerSegment(name, std::move(mapping), lock_fd));
  abi::SegmentHeader& h = seg->header();
  // The memory is fresh zero pages; fill the immutable part, then publish.
  h.magic = abi::kSegmentMagic;
  h.abi_major = abi::kAbiMajor;
  h.abi_minor = abi::kAbiMinor;
  h.header_bytes = sizeof(abi::SegmentHeader);
  h.event_bytes = sizeof(abi::OpEvent);
  h.ring_header_bytes = sizeof(abi::RingHeader);
  h.segment_bytes = layout.segment_bytes;
  h.ring_count = options.ring_count;
  h.ring_capacity = options.ring_capacity;
  h.rings_offset = layout.rings_offset;
  h.slots_offset = layout.slots_offset;
  h.string_entries_offset = layout.string_entries_offset;
  h.string_blob_offset = layout.string_blob_offset;
  h.string_slots = options.string_slots;
  h.string_blob_bytes = options.string_blob_bytes;
  h.listing_entries_offset = layout.listing_entries_offset;
  h.listing_blob_offset = layout.listing_blob_offset;
  h.listing_slots = options.listing_slots_in_segment();
  h.listing_blob_bytes = options.listing_blob_in_segment();
  h.pid = seg_name.pid;
  h.uid = seg_name.uid;
  h.process_start_ticks = ProcessStartTicks(pid).value_or(0);
  h.nonce = seg_name.nonce;
#if defined(__x86_64__)
  h.clock_id = static_cast<uint32_t>(abi::ClockId::kTsc);
  h.clock_ticks_per_sec = 0;
#else
  h.clock_id = static_cast<uint32_t>(abi::ClockId::kMonotonicNs);
  h.clock_ticks_per_sec = 1000000000ULL;
#endif
  h.liveness = static_cast<uint32_t>(lock_fd >= 0 ? abi::LivenessSignal::kSegmentLock
                                                  : abi::LivenessSignal::kPidOnly);
  h.created_ts = detail::Now();
  h.created_monotonic_ns = ClockNowNs(CLOCK_MONOTONIC);
  h.created_realtime_ns = ClockNowNs(CLOCK_REALTIME);
  CopyPadded(h.session_label, sizeof h.session_label, options.session_label);
  CopyPadded(h.executable, sizeof h.executable, ProcessExecutable(pid));
  const std::string cmdline = ProcessCommandLine(pid, abi::kCommandLineBytes - 1);
  std::memset(h.command_line, 0, sizeof h.command_line);
  std::memcpy(h.command_line, cmdline.data(), cmdline.size());
  h.level.store(static_cast<uint32_t>(initial_level), std::memory_order_relaxed);
  h.requested_level.store(static_cast<uint32_t>(requested_level), std::memory_order_relaxed);
  // Release: publishes the immutable header. Pairs with the consumer's
  // acquire load of state before it copies the header.
  h.state.store(static_cast<uint32_t>(abi::SegmentState::kReady), std::memory_order_release);
  // Tell a watching daemon at once that the segment is ready: touching the
  // file's times raises inotify IN_ATTRIB (stores into the mapping raise
  // nothing). Without it the daemon, which saw the name at shm_open while
  // the header was still empty, would only retry on a later pass.
  const std::string path = std::string(kShmFolder) + "/" + name;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return seg;
}

ProducerSegment::ProducerSegment(std::string name, std::unique_ptr<Mapping> mapping, int lock_fd)
    : name_(std::move(name)),
      mapping_(std::move(mapping)),
      base_(static_cast<char*>(mapping_->region.get_address())),
      header_(reinterpret_cast<abi::SegmentHeader*>(base_)),
      lock_fd_(lock_fd) {}

ProducerSegment::~ProducerSegment() {
  // Close, never unlock: in a fork child this descriptor is a copy of the
  // parent's, whose lock must stay.
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

abi::RingHeader& ProducerSegment::ring(uint32_t index) {
  return reinterpret_cast<abi::RingHeader*>(base_ + header_->rings_offset)[index];
}

abi::OpEvent* ProducerSegment::slots(uint32_t index) {
  return reinterpret_cast<abi::OpEvent*>(base_ + header_->slots_offset) +
         uint64_t{index} * header_->ring_capacity;
}

abi::StringEntry* ProducerSegment::string_entries() {
  return reinterpret_cast<abi::StringEntry*>(base_ + header_->string_entries_offset);
}

char* ProducerSegment::string_blob() { return base_ + header_->string_blob_offset; }

abi::ListingEntry* ProducerSegment::listing_entries() {
  return reinterpret_cast<abi::ListingEntry*>(base_ + header_->listing_entries_offset);
}

char* ProducerSegment::listing_blob() { return base_ + header_->listing_blob_offset; }

void ProducerSegment::Unlink() {
  if (unlinked_) return;
  bip::shared_memory_object::remove(name_.c_str());
  unlinked_ = true;
}

}  // namespace optrace::client
