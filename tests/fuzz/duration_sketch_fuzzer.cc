// libFuzzer target: arbitrary bytes as a stored duration sketch (an
// op_aggregates sketch BLOB). Parsing must fail cleanly or give a sketch
// that serialises and parses back to itself, merges with itself to twice
// its count, and reads quantiles that never decrease.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "model/duration_sketch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using optrace::daemon::DurationSketch;
  auto sketch = DurationSketch::Parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!sketch.ok()) return 0;
  auto again = DurationSketch::Parse(sketch.value().Serialize());
  if (!again.ok() || !(again.value() == sketch.value())) std::abort();
  uint64_t previous = 0;
  for (const double q : {0.0, 0.5, 0.95, 0.99, 1.0}) {
    const uint64_t value = sketch.value().Quantile(q);
    if (value < previous) std::abort();
    previous = value;
  }
  DurationSketch doubled = sketch.value();
  doubled.Merge(sketch.value());
  const uint64_t count = sketch.value().Count();
  const uint64_t expected = count > std::numeric_limits<uint64_t>::max() - count
                                ? std::numeric_limits<uint64_t>::max()
                                : 2 * count;
  if (doubled.Count() != expected) std::abort();
  if (!DurationSketch::Parse(doubled.Serialize()).ok() && expected == 2 * count) std::abort();
  return 0;
}
