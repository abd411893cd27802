// The width of UTF-8 text on a terminal, and cutting text to a width with
// an ellipsis. Every code point counts as one column (names, tags and the
// units printed here are ASCII plus "µ", "…" and block characters).
#ifndef OPTRACE_CLI_TEXT_WIDTH_H_
#define OPTRACE_CLI_TEXT_WIDTH_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace optrace::cli {

inline constexpr std::string_view kEllipsis = "…";

// Columns `text` takes: its number of UTF-8 code points.
size_t DisplayWidth(std::string_view text);

// `text` when it fits in `width` columns; otherwise its first `width - 1`
// columns and kEllipsis (just the ellipsis for width 1, "" for width 0).
// Never splits a code point.
std::string FitToWidth(std::string_view text, size_t width);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TEXT_WIDTH_H_
