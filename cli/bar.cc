#include "bar.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace optrace::cli {
namespace {

constexpr size_t kStepsPerColumn = 8;
// kPartialBlocks[n] is a block n/8 of a column wide (index 0 unused).
constexpr std::array<std::string_view, kStepsPerColumn> kPartialBlocks = {"",  "▏", "▎", "▍",
                                                                          "▌", "▋", "▊", "▉"};
constexpr std::string_view kFullBlock = "█";

}  // namespace

std::string RenderBar(double fraction, size_t width) {
  if (!(fraction > 0.0) || width == 0) return "";
  fraction = std::min(fraction, 1.0);
  size_t steps =
      static_cast<size_t>(std::lround(fraction * static_cast<double>(width * kStepsPerColumn)));
  steps = std::max<size_t>(steps, 1);
  std::string bar;
  for (size_t i = 0; i < steps / kStepsPerColumn; ++i) bar.append(kFullBlock);
  bar.append(kPartialBlocks[steps % kStepsPerColumn]);
  return bar;
}

}  // namespace optrace::cli
