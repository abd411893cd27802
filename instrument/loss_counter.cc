#include "instrument/loss_counter.h"

#include <bit>

#include "optrace/optrace.h"

namespace optrace::instrument {

void LossCounter::Add(uint64_t count) noexcept {
  if (count == 0) return;
  // Relaxed: the count orders nothing; it is only reported.
  const uint64_t before = count_.fetch_add(count, std::memory_order_relaxed);
  const uint64_t after = before + count;
  // A new power of two was reached or passed.
  if (std::bit_width(after) != std::bit_width(before)) {
    Counter(site_, static_cast<int64_t>(after), Level::kWarning);
  }
  // After the sample, which starts the runtime if nothing else has: the
  // segment then exists to count in.
  if (kind_ == LossKind::kNameCapped) optrace_count_names_capped(count);
}

}  // namespace optrace::instrument
