#include "thread_writer.h"

#include <algorithm>
#include <optional>

#include "common/process_info.h"
#include "full_ring_wait.h"
#include "runtime.h"
#include "stderr_sink.h"

namespace optrace::detail {

__thread ThreadWriter tls_writer __attribute__((tls_model("initial-exec")));

namespace {
// Above every level: the first op passes the check and starts the runtime.
const std::atomic<uint32_t> g_bootstrap_level_word{kBootstrapLevel};
}  // namespace

std::atomic<const std::atomic<uint32_t>*> g_level_word{&g_bootstrap_level_word};

}  // namespace optrace::detail

namespace optrace::client {
namespace {

using detail::ThreadWriter;
using detail::tls_writer;

// Marks the thread's ring retired when the thread exits, so that another
// thread can reuse it (positions continue; nothing is lost).
struct RingReleaser {
  bool armed = false;
  bool exited = false;
  ~RingReleaser() {
    ThreadWriter& w = tls_writer;
    if (w.ring != nullptr) {
      // Release: our last write_pos store happens-before the state change
      // that lets another thread (or the consumer) take the ring.
      w.ring->state.store(static_cast<uint32_t>(abi::RingState::kRetired),
                          std::memory_order_release);
    }
    w.ring = nullptr;
    w.ring_slots = nullptr;
    w.fast_slots = nullptr;
    exited = true;
  }
};
thread_local RingReleaser tls_releaser;

// Takes a free ring, or else a retired one, with a CAS on its state.
bool ClaimRing(ThreadWriter& w, ProducerSegment& segment, bool fast_path_allowed) {
  const abi::SegmentHeader& h = segment.header();
  for (auto from : {abi::RingState::kFree, abi::RingState::kRetired}) {
    for (uint32_t i = 0; i < h.ring_count; ++i) {
      abi::RingHeader& ring = segment.ring(i);
      auto expected = static_cast<uint32_t>(from);
      if (ring.state.load(std::memory_order_relaxed) != expected) continue;
      // Acquire: sees the previous owner's final write_pos and dropped.
      if (!ring.state.compare_exchange_strong(expected,
                                              static_cast<uint32_t>(abi::RingState::kActive),
                                              std::memory_order_acquire)) {
        continue;
      }
      ring.owner_tid = w.tid;
      w.ring = &ring;
      w.ring_slots = segment.slots(i);
      w.mask = h.ring_capacity - 1;
      // Positions never reset: a new owner continues the ring's sequence.
      w.write_pos = ring.write_pos.load(std::memory_order_relaxed);
      w.dropped = ring.dropped.load(std::memory_order_relaxed);
      w.check_pos = w.write_pos;  // the first event looks at the fill
      w.wake_tried_at_read = ~uint64_t{0};
      w.wait_expired_at_read = ~uint64_t{0};
      w.fast_slots = fast_path_allowed ? w.ring_slots : nullptr;
      segment.header().rings_claimed.fetch_add(1, std::memory_order_relaxed);
      tls_releaser.armed = true;  // registers the thread-exit destructor
      return true;
    }
  }
  return false;
}

}  // namespace

void ResetThreadWriterAfterFork() {
  tls_writer = ThreadWriter{};
  detail::g_level_word.store(&detail::g_bootstrap_level_word, std::memory_order_release);
}

}  // namespace optrace::client

namespace optrace::detail {
namespace {

// The fill beyond which a ring wakes a sleeping daemon: half the ring.
constexpr uint64_t kWakeFill(uint64_t capacity) { return capacity / 2; }

// Lossless mode: whether the daemon made room in the ring, full at `pos`,
// within the wait (WaitForRoom); then `*read` is where it has read to.
bool WaitedForRoom(ThreadWriter& w, uint64_t pos, uint64_t* read) noexcept {
  client::Runtime& rt = client::Runtime::Get();
  client::ProducerSegment* segment = rt.segment();
  if (!rt.options().full_ring_wait || segment == nullptr) return false;
  const std::optional<uint64_t> room =
      client::WaitForRoom(w, pos, *read, segment->header(), rt.waker(),
                          uint64_t{rt.options().full_ring_timeout_ms} * 1'000'000);
  if (!room) return false;
  *read = *room;
  return true;
}

}  // namespace

bool LevelEnabledSlow(uint32_t level) noexcept {
  client::Runtime::Get().EnsureStarted();
  return g_level_word.load(std::memory_order_acquire)->load(std::memory_order_relaxed) >= level;
}

void RefillOpIds(ThreadWriter& w) noexcept {
  w.next_op_id = client::Runtime::Get().AllocateOpIds(client::kOpIdBlock);
  w.op_id_end = w.next_op_id + client::kOpIdBlock;
}

bool CheckFillSlow(ThreadWriter& w) noexcept {
  const uint64_t pos = w.write_pos;
  const uint64_t capacity = w.mask + 1;
  // Acquire pairs with the consumer's release store of read_pos after it
  // copied the slots: we may overwrite them only after that.
  uint64_t read = w.ring->read_pos.load(std::memory_order_acquire);
  // Past half full: the daemon holds slots only until half full (it keeps
  // uncommitted events while there is room), so a ring beyond that needs
  // it now. Wake it if it sleeps, trying once per read position it reached:
  // a stuck daemon costs one system call, not one per event, and a full
  // ring's drops stay a load and a store. A daemon that was awake at our
  // try releases at its next pass (the ring is past half), which re-arms
  // us; if it fell asleep just before that pass, its timer ends the sleep.
  if (pos - read > kWakeFill(capacity) && read != w.wake_tried_at_read) {
    w.wake_tried_at_read = read;
    client::Runtime& rt = client::Runtime::Get();
    if (client::ProducerSegment* segment = rt.segment())
      rt.waker().WakeIfSleeping(segment->header());
  }
  if (pos - read > w.mask && !WaitedForRoom(w, pos, &read)) {
    // Full: drop and count exactly; never block (lossless mode only after
    // its bounded wait). Only this thread writes `dropped`, so a plain
    // store of our private count suffices (no RMW).
    ++w.dropped;
    w.ring->dropped.store(w.dropped, std::memory_order_relaxed);
    w.drops_pending = abi::kFlagDropsBefore;
    w.check_pos = pos;  // look again at the next event
    return false;
  }
  const uint64_t fill = pos - read;
  // Below the watermark: nothing to do until it is crossed. Above it: look
  // again a sixteenth of the ring later (the daemon may have gone back to
  // sleep meanwhile), and at the latest when the ring would be full.
  w.check_pos = fill <= kWakeFill(capacity)
                    ? read + kWakeFill(capacity) + 1
                    : std::min(pos + std::max<uint64_t>(capacity / 16, 1), read + capacity);
  return true;
}

void EmitSlow(const abi::OpEvent& event) noexcept {
  client::Runtime& rt = client::Runtime::Get();
  rt.EnsureStarted();
  ThreadWriter& w = tls_writer;
  if (w.tid == 0) w.tid = CurrentThreadId();
  const bool sink = rt.options().sink_stderr;
  if (sink) client::PrintEventToStderr(event, rt.strings());
  client::ProducerSegment* segment = rt.segment();
  if (segment == nullptr) {
    rt.CountNoSegmentDrop();
    return;
  }
  if (w.ring == nullptr) {
    // With the stderr sink on, every event keeps coming here to be printed.
    if (client::tls_releaser.exited || !client::ClaimRing(w, *segment, !sink)) {
      segment->header().events_dropped_no_ring.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  WriteSlot(w, w.ring_slots, [&](abi::OpEvent& slot) { slot = event; });
}

}  // namespace optrace::detail
