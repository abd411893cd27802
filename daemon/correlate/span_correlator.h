// Pairs the LAUNCH and COMPLETE halves of one session's ops into spans,
// whichever threads, rings and order they arrive in.
#ifndef OPTRACE_DAEMON_CORRELATE_SPAN_CORRELATOR_H_
#define OPTRACE_DAEMON_CORRELATE_SPAN_CORRELATOR_H_

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "model/span.h"

namespace optrace::daemon {

// What one step of correlation produced, for the next StoreBatch.
struct CorrelatorOutput {
  std::vector<Span> spans;
  std::vector<HalfOp> halves_opened;                        // unpaired halves to persist
  std::vector<std::pair<uint64_t, uint8_t>> halves_closed;  // persisted halves paired or finalised
};

// Counters of what the correlator had to decide for itself.
struct CorrelatorStats {
  uint64_t spans = 0;
  uint64_t duplicates = 0;
  uint64_t incomplete = 0;
  uint64_t completes_without_launch = 0;
  uint64_t evicted_open = 0;     // open LAUNCHes stored early as incomplete (cap)
  uint64_t evicted_pending = 0;  // early COMPLETEs stored as without-launch (cap)
};

// Key: the op id within one session (the correlator is per session).
// Thread rules: one thread. Memory is bounded by `max_open` LAUNCHes and
// `max_pending` COMPLETEs waiting for their other half: beyond, the oldest
// are stored early with their final status and counted.
//
// Fast path for scoped ops: a LAUNCH goes onto its thread's stack of open
// ops, and a COMPLETE that matches the top of its thread's stack pairs
// with it there, without a hash lookup. Anything else (a COMPLETE from
// another thread, out of order, an id not above the top) first moves every
// stack into the map, then takes the general path: each LAUNCH is moved at
// most once, so the result is the same as with the map alone, with one
// exception for a producer that breaks the id rules: a LAUNCH whose id
// another thread's stack already holds is not seen as a duplicate; both are
// stored, the one never completed as incomplete.
//
// Self time: a paired span's children_ns is the sum of the durations of
// its children that subtract from it, clamped to its own duration. A
// child subtracts when it paired while its parent was still open,
// launched on the parent's thread, completed on that same thread and
// carries no device duration: an op completed elsewhere (a GPU op's
// completion thread) or timed on a device is not time its parent's
// thread spent in it. A child that outlives its parent is not
// subtracted, nor are children of a LAUNCH restored after a restart
// (children that paired before it are not known again).
class SpanCorrelator {
 public:
  // `duration_ns(launch_raw_ts, complete_raw_ts)` converts the producer's
  // clock to nanoseconds (the session's ClockConverter).
  SpanCorrelator(std::function<uint64_t(uint64_t, uint64_t)> duration_ns, size_t max_open,
                 size_t max_pending);

  // Feeds one half (kind LAUNCH or COMPLETE) and appends what it finishes.
  void Add(const HalfOp& half, CorrelatorOutput* out);

  // Persists the halves that have waited since the last call: appended to
  // out->halves_opened. Called when a batch is cut, so that a restarted
  // daemon can still pair them.
  void PersistWaiting(CorrelatorOutput* out);

  // After a batch that persisted `halves` was shed: they are not stored, so
  // the next PersistWaiting persists them again.
  void Unpersist(const std::vector<HalfOp>& halves);

  // The process ended: every open LAUNCH becomes an incomplete span and
  // every waiting COMPLETE a complete-without-launch span.
  void Finish(CorrelatorOutput* out);

  // Restores halves a previous daemon persisted (already stored).
  void Restore(const std::vector<HalfOp>& halves);

  // LAUNCHes still waiting for their COMPLETE (the ops still open).
  size_t open_count() const { return open_.size() + stacked_; }
  // The first `max` of them by op id (the oldest: ids increase), in that
  // order. Costs one look at each open op and memory for `max`, however
  // many are open.
  std::vector<HalfOp> OpenLaunches(size_t max = SIZE_MAX) const;
  const CorrelatorStats& stats() const { return stats_; }

 private:
  struct Waiting {
    HalfOp half;
    bool persisted = false;
    uint64_t children_ns = 0;  // a LAUNCH's: its subtracting children's time so far
  };
  using WaitingMap = std::unordered_map<uint64_t, Waiting>;
  // The open scoped LAUNCHes of one thread, innermost last.
  struct ThreadStack {
    uint32_t tid;
    std::vector<Waiting> open;
  };
  // Threads with a stack at most: beyond, a thread's ops use the map (the
  // thread id is the producer's word and bounds nothing by itself).
  static constexpr size_t kMaxStacks = 64;

  // The stack of thread `tid`, created when there is room; nullptr if not.
  ThreadStack* StackOf(uint32_t tid);
  // Moves every stacked LAUNCH into open_ (keeping its persisted state).
  void SpillStacks();
  // The general path of Add, through the maps.
  void AddToMaps(const HalfOp& half, CorrelatorOutput* out);

  // `children_ns`: what the LAUNCH's children added up to (clamped here).
  Span PairedSpan(const HalfOp& launch, const HalfOp& complete, uint64_t children_ns) const;
  // Adds a paired `child`'s duration to its open parent's children_ns
  // when it subtracts from it (see the class comment). `stack`: the
  // child's thread's stack, where the parent usually is; or nullptr.
  void CreditParent(const Span& child, ThreadStack* stack);
  static Span LoneSpan(const HalfOp& half, SpanStatus status);
  // Finishes a waiting half whose partner arrived, or that is finalised.
  static void Close(const Waiting& w, CorrelatorOutput* out);
  // Stores the oldest tenth of `map` early with `status` when it is full.
  void EvictIfFull(WaitingMap& map, size_t cap, SpanStatus status, uint64_t* counter,
                   CorrelatorOutput* out);

  std::function<uint64_t(uint64_t, uint64_t)> duration_ns_;
  const size_t max_open_;
  const size_t max_pending_;
  WaitingMap open_;  // LAUNCH waiting for COMPLETE (besides the stacks)
  std::vector<ThreadStack> stacks_;
  size_t last_stack_ = 0;  // index of the stack used last (events come in runs)
  size_t stacked_ = 0;     // LAUNCHes in all stacks
  WaitingMap pending_;     // COMPLETE waiting for LAUNCH
  std::vector<std::pair<uint64_t, uint8_t>> unpersisted_;  // (op id, kind) in arrival order
  CorrelatorStats stats_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_CORRELATE_SPAN_CORRELATOR_H_
