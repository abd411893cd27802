#include "palette.h"

namespace optrace::cli {
namespace {

constexpr std::string_view kReset = "\x1b[0m";

std::string_view EscapeFor(Tone tone) {
  switch (tone) {
    case Tone::kPlain:
      return "";
    case Tone::kLaunch:
      return "\x1b[36m";  // cyan
    case Tone::kComplete:
      return "\x1b[32m";  // green
    case Tone::kProblem:
      return "\x1b[1;31m";  // bold red
    case Tone::kWarning:
      return "\x1b[33m";  // yellow
    case Tone::kMark:
      return "\x1b[35m";  // magenta
    case Tone::kDim:
      return "\x1b[2m";
    case Tone::kHeader:
      return "\x1b[1m";  // bold
  }
  return "";
}

}  // namespace

std::string Palette::Paint(std::string_view text, Tone tone) const {
  const std::string_view escape = EscapeFor(tone);
  if (!enabled_ || escape.empty() || text.empty()) return std::string(text);
  std::string painted;
  painted.reserve(escape.size() + text.size() + kReset.size());
  painted.append(escape).append(text).append(kReset);
  return painted;
}

}  // namespace optrace::cli
