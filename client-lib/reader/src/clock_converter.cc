#include "optrace/reader/clock_converter.h"

#include <time.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "common/clock_now.h"
#include "optrace/detail/fast_path.h"

namespace optrace::reader {
namespace {

struct Sample {
  uint64_t tsc;
  uint64_t ns;
};

// A (tsc, ns) pair taken as close together as the clocks allow: the read
// with the smallest TSC bracket around clock_gettime wins.
Sample TakeSample() {
  Sample best{0, 0};
  uint64_t best_gap = ~0ULL;
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = detail::Now();
    const uint64_t ns = ClockNowNs(CLOCK_MONOTONIC);
    const uint64_t t1 = detail::Now();
    if (t1 - t0 < best_gap) {
      best_gap = t1 - t0;
      best = {t0 + (t1 - t0) / 2, ns};
    }
  }
  return best;
}

struct TscCalibration {
  std::once_flag once;
  std::mutex mu;
  Sample origin{};
  std::atomic<double> ticks_per_ns{1.0};
};
TscCalibration g_cal;

void CalibrateOnce() {
  std::call_once(g_cal.once, [] {
    g_cal.origin = TakeSample();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const Sample s = TakeSample();
    g_cal.ticks_per_ns.store(
        static_cast<double>(s.tsc - g_cal.origin.tsc) / static_cast<double>(s.ns - g_cal.origin.ns),
        std::memory_order_relaxed);
  });
}

}  // namespace

double TscTicksPerNs() {
  CalibrateOnce();
  return g_cal.ticks_per_ns.load(std::memory_order_relaxed);
}

void RefineTscRate() {
  CalibrateOnce();
  std::lock_guard<std::mutex> lock(g_cal.mu);
  const Sample s = TakeSample();
  if (s.ns <= g_cal.origin.ns || s.tsc <= g_cal.origin.tsc) return;
  g_cal.ticks_per_ns.store(
      static_cast<double>(s.tsc - g_cal.origin.tsc) / static_cast<double>(s.ns - g_cal.origin.ns),
      std::memory_order_relaxed);
}

ClockConverter::ClockConverter(const SegmentGeometry& g)
    : clock_id_(g.clock_id),
      ticks_per_sec_(g.clock_ticks_per_sec),
      created_ts_(g.created_ts),
      created_monotonic_ns_(g.created_monotonic_ns),
      created_realtime_ns_(g.created_realtime_ns) {}

int64_t ClockConverter::TicksToNs(int64_t ticks) const {
  if (clock_id_ == abi::ClockId::kMonotonicNs) return ticks;
  if (ticks_per_sec_ != 0) {
    // A declared rate converts exactly: round(ticks * 1e9 / rate), with the
    // product in 128 bits (it overflows 64 for offsets above ~18 s at GHz).
    __extension__ using Int128 = __int128;
    const Int128 scaled = Int128{ticks} * 1000000000;
    const Int128 rate = static_cast<Int128>(ticks_per_sec_);
    const Int128 half = rate / 2;
    const Int128 ns = scaled >= 0 ? (scaled + half) / rate : (scaled - half) / rate;
    // A slow declared rate can scale past 64 bits: saturate.
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (ns > kMax) return kMax;
    if (ns < -kMax) return -kMax;
    return static_cast<int64_t>(ns);
  }
  // Our own calibration (the TSC is one clock for the whole machine): only
  // the offset goes through double, never the 1.8e18 ns anchor.
  return std::llround(static_cast<double>(ticks) / TscTicksPerNs());
}

uint64_t ClockConverter::SinceCreation(uint64_t anchor_ns, uint64_t ts) const {
  const int64_t offset_ns = TicksToNs(static_cast<int64_t>(ts - created_ts_));
  // Two's complement: adding the offset's bits adds a negative offset too.
  const auto offset_bits = static_cast<uint64_t>(offset_ns);
  if (offset_ns < 0 && 0 - offset_bits > anchor_ns) return 0;
  return anchor_ns + offset_bits;
}

uint64_t ClockConverter::ToMonotonicNs(uint64_t ts) const {
  return SinceCreation(created_monotonic_ns_, ts);
}

uint64_t ClockConverter::ToRealtimeNs(uint64_t ts) const {
  return SinceCreation(created_realtime_ns_, ts);
}

uint64_t ClockConverter::DurationNs(uint64_t begin_ts, uint64_t end_ts) const {
  if (end_ts <= begin_ts) return 0;
  const int64_t ns = TicksToNs(static_cast<int64_t>(end_ts - begin_ts));
  return ns < 0 ? 0 : static_cast<uint64_t>(ns);
}

}  // namespace optrace::reader
