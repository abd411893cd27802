// Horizontal bars drawn with Unicode block characters, eight steps per
// column: the share-of-time column of `optrace stats` and the progress bar
// of `optrace export`.
#ifndef OPTRACE_CLI_BAR_H_
#define OPTRACE_CLI_BAR_H_

#include <cstddef>
#include <string>

namespace optrace::cli {

// A bar `fraction` (clamped to [0, 1]) of `width` columns long, without
// padding: DisplayWidth of the result is at most `width`. A non-zero
// fraction always shows at least the thinnest block, so that small but
// present costs stay visible.
std::string RenderBar(double fraction, size_t width);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_BAR_H_
