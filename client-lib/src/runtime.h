// The process-wide producer runtime: options, string table, segment, and
// the process events (first use, fork, exit) that change them.
#ifndef OPTRACE_CLIENT_RUNTIME_H_
#define OPTRACE_CLIENT_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "drain_waker.h"
#include "listing_capture.h"
#include "optrace/abi.h"
#include "producer_options.h"
#include "producer_segment.h"
#include "string_interner.h"

namespace optrace::client {

// One per process image; never destroyed, so that ops emitted from static
// destructors and late threads still find it. Thread-safe.
class Runtime {
 public:
  static Runtime& Get();

  // Creates this process's segment on first call (again in a fork child)
  // and installs its level word for the hot path. When the segment cannot
  // be created, says why on stderr once and installs a private level word:
  // events are then counted as dropped (and still printed by the stderr
  // sink). Cheap after the first call.
  void EnsureStarted();

  // The segment, or nullptr when it could not be created.
  // REQUIRES: EnsureStarted() was called in this process image.
  ProducerSegment* segment() { return segment_.get(); }
  StringInterner& strings() { return *strings_; }
  ListingCapture& listings() { return *listings_; }

  // Interns the source location "file:line" and, the first time, asks for
  // its listing (read in the background). Returns its id, or
  // kStringTableFull. May throw std::bad_alloc.
  uint32_t InternLocation(std::string_view file, uint32_t line);
  DrainWaker& waker() { return waker_; }
  const ProducerOptions& options() const { return options_; }

  // The first id of a fresh block of `count` op ids.
  uint64_t AllocateOpIds(uint64_t count) {
    return next_op_id_.fetch_add(count, std::memory_order_relaxed);
  }

  // Records what this process asks for (optrace::SetLevel); applied to the
  // live word at once while no daemon is attached.
  void SetRequestedLevel(abi::LevelValue level);

  // Adds `count` to the segment's names_capped (optrace_count_names_capped).
  // Returns false, counting nothing, when the runtime has not started in
  // this process image or has no segment. Lock-free; never starts it.
  bool CountNamesCapped(uint64_t count);

  void CountNoSegmentDrop() { no_segment_drops_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t no_segment_drops() const { return no_segment_drops_.load(std::memory_order_relaxed); }

 private:
  Runtime();
  void StartLocked();         // REQUIRES: mu_ held
  void InstallHooksLocked();  // REQUIRES: mu_ held. atexit and atfork, once
  static void OnExit();
  static void OnForkPrepare();
  static void OnForkParent();
  static void OnForkChild();

  const ProducerOptions options_;
  std::unique_ptr<StringInterner> strings_;
  std::unique_ptr<ListingCapture> listings_;
  DrainWaker waker_;
  std::atomic<uint64_t> next_op_id_{1};
  std::atomic<uint64_t> no_segment_drops_{0};
  std::mutex mu_;
  std::atomic<bool> started_{false};          // written under mu_
  std::unique_ptr<ProducerSegment> segment_;  // GUARDED_BY(mu_) for writes
  std::atomic<uint32_t> private_level_{0};    // the live word when there is no segment
  // What this process asks for: OPTRACE_LEVEL, then SetLevel. Kept here so
  // that a fork child's new segment starts where its parent was.
  abi::LevelValue requested_level_;  // GUARDED_BY(mu_)
  // Written under mu_; read without it to skip the lock once set.
  std::atomic<bool> hooks_installed_{false};
};

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_RUNTIME_H_
