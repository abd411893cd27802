// The practical floor of a traced op, written by hand: per-thread rings in
// one shared-memory mapping, where an op pair costs two rdtsc, two 64-byte
// stores and one release store, and a consumer thread drains them by
// copying. No level check, no validation, no strings: what any
// shared-memory tracer has to pay at least. Used by bench_client
// (BM_FloorRing_Pair) and bench_side_by_side (the "floor" row).
#ifndef OPTRACE_TESTS_BENCH_FLOOR_RING_H_
#define OPTRACE_TESTS_BENCH_FLOOR_RING_H_

#include <sys/mman.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

namespace optrace::bench {

// One event, one cache line: timestamp, op id, kind (1 LAUNCH, 2 COMPLETE),
// and five words standing for the rest of a real event (name, target,
// device, ...), written as 0.
struct FloorEvent {
  uint64_t ts, id, a, b, c, d, e, f;
};
static_assert(sizeof(FloorEvent) == 64);

inline constexpr uint64_t kFloorCapacity = 65536;  // events per ring
inline constexpr int kFloorRings = 8;

// One producer thread's ring. Head and tail each have their own cache line:
// the producer writes only head, the consumer only tail.
struct FloorRing {
  alignas(64) std::atomic<uint64_t> head{0};
  alignas(64) std::atomic<uint64_t> tail{0};
  alignas(64) FloorEvent slots[kFloorCapacity];
};

namespace floor_detail {

// The process's rings (kFloorRings in one mapping), set by FloorRings.
inline FloorRing* g_rings = nullptr;
inline std::atomic<int> g_next_ring{0};
inline std::atomic<uint64_t> g_drops{0};

struct Writer {
  FloorRing* ring = nullptr;
  uint64_t pos = 0;
  uint64_t cached_tail = 0;
};
inline thread_local Writer tls_writer;

// Fills `slot` (one 64-byte line) with an event of op `id` stamped now.
// Every field is stored straight into the slot: an event built on the
// stack and copied would reload it with wider loads than the stores that
// built it, a store-forwarding stall the floor must not pay.
inline void WriteFloorEvent(FloorEvent& slot, uint64_t id, uint64_t kind) {
  slot.ts = __rdtsc();
  slot.id = id;
  slot.a = kind;
  slot.b = slot.c = slot.d = slot.e = slot.f = 0;
}

}  // namespace floor_detail

// Writes one LAUNCH + COMPLETE pair for op `id` into this thread's ring, or
// counts a drop (FloorDrops) when the ring is full. The first call on a
// thread claims a ring (threads beyond kFloorRings share rings, which a
// benchmark must not do).
// REQUIRES: a FloorRings is alive.
inline void FloorPair(uint64_t id) {
  floor_detail::Writer& w = floor_detail::tls_writer;
  if (w.ring == nullptr) [[unlikely]] {
    w.ring = &floor_detail::g_rings[floor_detail::g_next_ring.fetch_add(1) % kFloorRings];
    w.pos = w.ring->head.load(std::memory_order_relaxed);
  }
  if (w.pos + 2 - w.cached_tail > kFloorCapacity) [[unlikely]] {
    // Acquire: pairs with the consumer's release store of tail, so the
    // slots it has copied may be overwritten.
    w.cached_tail = w.ring->tail.load(std::memory_order_acquire);
    if (w.pos + 2 - w.cached_tail > kFloorCapacity) {
      floor_detail::g_drops.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  floor_detail::WriteFloorEvent(w.ring->slots[w.pos & (kFloorCapacity - 1)], id, 1);
  floor_detail::WriteFloorEvent(w.ring->slots[(w.pos + 1) & (kFloorCapacity - 1)], id, 2);
  w.pos += 2;
  // Release: publishes both slots. Pairs with the consumer's acquire of head.
  w.ring->head.store(w.pos, std::memory_order_release);
}

// Pairs dropped so far because a ring was full.
inline uint64_t FloorDrops() { return floor_detail::g_drops.load(std::memory_order_relaxed); }

// Owns the rings' mapping and the consumer thread that drains them: a pass
// over all rings copying what was published, then a 50 us sleep when there
// was nothing to read (as a tracer's drain loop would).
// REQUIRES: at most one per process; no FloorPair after it is destroyed.
class FloorRings {
 public:
  FloorRings() {
    void* p = ::mmap(nullptr, sizeof(FloorRing) * kFloorRings, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("floor ring: mmap");
      std::exit(1);
    }
    floor_detail::g_rings = new (p) FloorRing[kFloorRings];
    thread_ = std::thread([this] { Drain(); });
  }
  ~FloorRings() {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
    ::munmap(floor_detail::g_rings, sizeof(FloorRing) * kFloorRings);
    floor_detail::g_rings = nullptr;
  }
  FloorRings(const FloorRings&) = delete;
  FloorRings& operator=(const FloorRings&) = delete;

 private:
  void Drain() {
    std::vector<FloorEvent> copy(4096);
    while (!stop_.load(std::memory_order_relaxed)) {
      bool any = false;
      for (int r = 0; r < kFloorRings; ++r) {
        FloorRing& ring = floor_detail::g_rings[r];
        // Acquire: pairs with the release store of head in FloorPair.
        const uint64_t head = ring.head.load(std::memory_order_acquire);
        uint64_t tail = ring.tail.load(std::memory_order_relaxed);
        while (tail < head) {
          const uint64_t n = std::min<uint64_t>(
              {head - tail, copy.size(), kFloorCapacity - (tail & (kFloorCapacity - 1))});
          std::memcpy(copy.data(), &ring.slots[tail & (kFloorCapacity - 1)],
                      n * sizeof(FloorEvent));
          tail += n;
          any = true;
        }
        // Release: the copies above are done before the producer reuses
        // the slots. Pairs with the acquire of tail in FloorPair.
        ring.tail.store(tail, std::memory_order_release);
      }
      if (!any) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  std::thread thread_;
  std::atomic<bool> stop_{false};
};

}  // namespace optrace::bench

#endif  // OPTRACE_TESTS_BENCH_FLOOR_RING_H_
