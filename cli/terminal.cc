#include "terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace optrace::cli {
namespace {

// COLUMNS as a positive number, or 0 when unset or not a number.
size_t ColumnsFromEnvironment() {
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr || *columns == '\0') return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(columns, &end, 10);
  return *end == '\0' ? static_cast<size_t>(value) : 0;
}

}  // namespace

bool IsTerminal(int fd) { return ::isatty(fd) == 1; }

bool ColoursWanted(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  return IsTerminal(fd) && (no_color == nullptr || *no_color == '\0');
}

size_t OutputWidth(int fd) {
  if (IsTerminal(fd)) {
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    const size_t columns = ColumnsFromEnvironment();
    return columns > 0 ? columns : kDefaultTerminalWidth;
  }
  return ColumnsFromEnvironment();
}

}  // namespace optrace::cli
