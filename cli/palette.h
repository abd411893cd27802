// ANSI colours for terminal output, or none at all: a disabled palette
// returns text unchanged, so callers never test for colour themselves.
#ifndef OPTRACE_CLI_PALETTE_H_
#define OPTRACE_CLI_PALETTE_H_

#include <string>
#include <string_view>

namespace optrace::cli {

// What a colour means, not which colour it is: the palette decides.
enum class Tone {
  kPlain,
  kLaunch,    // an op starts
  kComplete,  // an op ends normally
  kProblem,   // incomplete ops, crashed sessions, losses, lag
  kWarning,   // ops still open, non-zero drops
  kMark,      // marks and counters
  kDim,       // secondary detail
  kHeader,    // table headers
};

class Palette {
 public:
  // `enabled` is usually ColoursWanted(fd) of the stream written to.
  explicit Palette(bool enabled) : enabled_(enabled) {}

  // `text` wrapped in the escape codes of `tone` (and a reset), or `text`
  // itself when disabled or for kPlain.
  std::string Paint(std::string_view text, Tone tone) const;

 private:
  bool enabled_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_PALETTE_H_
