// Deterministic pseudo-random data for the demo: the same seed gives the
// same weights and inputs on every machine and standard library.
#ifndef OPTRACE_KERNELS_DEMO_SEEDED_DATA_H_
#define OPTRACE_KERNELS_DEMO_SEEDED_DATA_H_

#include <cstdint>
#include <span>

namespace optrace::kernels::demo {

// Fills `out` with values uniform in [center - scale, center + scale),
// determined only by `seed` and `stream` (one stream per tensor, so a
// tensor's values do not depend on what was generated before it).
void FillSeeded(std::span<float> out, uint64_t seed, uint64_t stream, float center, float scale);

}  // namespace optrace::kernels::demo

#endif  // OPTRACE_KERNELS_DEMO_SEEDED_DATA_H_
