#include "kernels/demo/seeded_data.h"

namespace optrace::kernels::demo {

namespace {

// SplitMix64: a fixed, well-mixed sequence (std:: distributions are not
// specified bit for bit, so they would differ between standard libraries).
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void FillSeeded(std::span<float> out, uint64_t seed, uint64_t stream, float center, float scale) {
  uint64_t state = seed;
  state = SplitMix64(state) ^ stream;
  constexpr double kTwoTo53 = 9007199254740992.0;
  for (float& value : out) {
    // 53 random bits -> [0, 1) -> [-1, 1).
    const double unit = static_cast<double>(SplitMix64(state) >> 11) / kTwoTo53;
    value = center + scale * static_cast<float>(2.0 * unit - 1.0);
  }
}

}  // namespace optrace::kernels::demo
