// What the output is connected to: a terminal (colours, progress bars, the
// width to fit tables into) or a pipe or file (plain text, no truncation).
#ifndef OPTRACE_CLI_TERMINAL_H_
#define OPTRACE_CLI_TERMINAL_H_

#include <cstddef>

namespace optrace::cli {

// The width assumed for a terminal whose size cannot be read.
inline constexpr size_t kDefaultTerminalWidth = 100;

// True when `fd` is a terminal.
bool IsTerminal(int fd);

// True when output to `fd` should be coloured: `fd` is a terminal and the
// NO_COLOR environment variable is unset or empty (https://no-color.org).
bool ColoursWanted(int fd);

// The width, in columns, that tables printed to `fd` must fit into; 0 means
// "no limit". A terminal: its size (TIOCGWINSZ), else COLUMNS, else
// kDefaultTerminalWidth. A pipe or file: COLUMNS when set, else 0, so that
// piped output keeps whole names for scripts.
size_t OutputWidth(int fd);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TERMINAL_H_
