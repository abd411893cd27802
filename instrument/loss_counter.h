// A count of events an instrumentation (NVTX, CUPTI, PyTorch) could not
// record faithfully, for one cause, made visible in the trace itself.
#ifndef OPTRACE_INSTRUMENT_LOSS_COUNTER_H_
#define OPTRACE_INSTRUMENT_LOSS_COUNTER_H_

#include <atomic>
#include <cstdint>

#include "optrace/optrace.hpp"

namespace optrace::instrument {

// What a counted loss did. kNameCapped: a name or tag was replaced by a
// generic one ("<too many names>") because a cap on distinct names was
// reached; the event itself is still recorded. kOther: anything else.
enum class LossKind { kOther, kNameCapped };

// Counts one cause of loss (e.g. "optrace.nvtx.names_over_cap"). Each time
// the count reaches a power of two (1, 2, 4, ...) it is also recorded as an
// optrace counter sample of that name at level warning, so that the
// daemon's store shows the loss without one sample per lost event. A
// counter of kind kNameCapped also adds each loss to the process segment's
// names_capped (optrace_count_names_capped), which `optrace status` shows.
// Declare it static: `name` must outlive it (a string literal does).
// Thread-safe; Add is for cold paths (one atomic add).
class LossCounter {
 public:
  explicit LossCounter(const char* name, LossKind kind = LossKind::kOther) noexcept
      : site_(name), kind_(kind) {}
  LossCounter(const LossCounter&) = delete;
  LossCounter& operator=(const LossCounter&) = delete;

  // Counts `count` more losses; records a sample when the total reaches or
  // passes a power of two.
  void Add(uint64_t count = 1) noexcept;
  // The total so far.
  uint64_t value() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  OpSite site_;
  const LossKind kind_;
  std::atomic<uint64_t> count_{0};
};

}  // namespace optrace::instrument

#endif  // OPTRACE_INSTRUMENT_LOSS_COUNTER_H_
